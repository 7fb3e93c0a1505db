import { Text, UnstyledButton } from '@mantine/core';
import type { ReactNode } from 'react';

/** How far a tree row's name is indented at its depth (0 for the top level), in pixels. */
export const treeIndent = (depth: number): number => depth * 24 + 8;

export interface TreeToggleProps {
  /** Whether the node's children are shown. */
  open: boolean;
  onToggle: () => void;
  /** False for a leaf: its name is plain text, lined up with the names of nodes that open. */
  expandable: boolean;
  /** The node's name: the button's accessible name, so a screen reader says "Medellín, contraído". */
  children: ReactNode;
}

/**
 * A node's name in a tree drawn as table rows (territories, the leader pyramid): a button with
 * `aria-expanded` that opens or closes its branch from the mouse or the keyboard (Tab to it,
 * Enter or Space), or plain text for a leaf.
 */
export function TreeToggle({ open, onToggle, expandable, children }: TreeToggleProps) {
  if (!expandable)
    return (
      <Text fw={500} pl={16} component="span" display="block">
        {children}
      </Text>
    );
  return (
    <UnstyledButton onClick={onToggle} aria-expanded={open} fw={500}>
      <span aria-hidden>{open ? '▾' : '▸'}</span> {children}
    </UnstyledButton>
  );
}
