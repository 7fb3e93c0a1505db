import { Button, Group } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { rolePermitted, type Role } from '../../../src/kernel/auth/roles';
import { useSignedIn } from './session';

/** One screen of a module's row of sections, for the roles of the policy action it is for. */
export interface Section {
  path: string;
  label: string;
  roles: readonly Role[];
}

/** The section a path belongs to: the longest section path it starts with. */
export function currentSection(pathname: string, sections: readonly Pick<Section, 'path'>[]): string | undefined {
  const path = pathname.replace(/\/+$/, '') || '/';
  return sections
    .filter((section) => path === section.path || path.startsWith(`${section.path}/`))
    .map((section) => section.path)
    .sort((a, b) => b.length - a.length)[0];
}

/** Links between a module's screens, as one row under the title; nothing when the role has only one of them. */
export function SectionTabs({ label, sections }: { label: string; sections: readonly Section[] }) {
  const { user } = useSignedIn();
  const { pathname } = useLocation();
  const shown = sections.filter((section) => rolePermitted(user.role, section.roles));
  if (shown.length < 2) return null;
  const current = currentSection(pathname, shown);
  return (
    <Group component="nav" aria-label={label} gap={4} mb="xs">
      {shown.map((section) => (
        <Button
          key={section.path}
          component={Link}
          to={section.path}
          size="compact-sm"
          variant={current === section.path ? 'filled' : 'subtle'}
          aria-current={current === section.path ? 'page' : undefined}
        >
          {section.label}
        </Button>
      ))}
    </Group>
  );
}
