import type { PyramidNode } from './types';

/** The pyramid's nodes arranged as a tree: each leader's people in the API's order (by name), the tops first. */
export interface PyramidTree {
  roots: PyramidNode[];
  children: ReadonlyMap<string, PyramidNode[]>;
  byId: ReadonlyMap<string, PyramidNode>;
}

export function buildTree(nodes: readonly PyramidNode[]): PyramidTree {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const children = new Map<string, PyramidNode[]>();
  const roots: PyramidNode[] = [];
  for (const node of nodes) {
    // A branch asked for alone (`rootId`) has a top whose leader is outside it.
    if (node.leaderId && byId.has(node.leaderId)) {
      const list = children.get(node.leaderId);
      if (list) list.push(node);
      else children.set(node.leaderId, [node]);
    } else roots.push(node);
  }
  return { roots, children, byId };
}

/** Lower case without accents: "Pérez" is found by "perez". */
export const folded = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();

/** The nodes whose name holds the text, in tree order. */
export function findNodes(tree: PyramidTree, text: string): PyramidNode[] {
  const wanted = folded(text);
  if (!wanted) return [];
  const found: PyramidNode[] = [];
  const visit = (node: PyramidNode) => {
    if (folded(node.name).includes(wanted)) found.push(node);
    for (const child of tree.children.get(node.id) ?? []) visit(child);
  };
  tree.roots.forEach(visit);
  return found;
}

/** Every leader above the node, nearest first: the branches to open so it shows. */
export function leadersOf(tree: PyramidTree, id: string): string[] {
  const chain: string[] = [];
  const seen = new Set<string>([id]);
  for (let at = tree.byId.get(id)?.leaderId; at && tree.byId.has(at) && !seen.has(at); at = tree.byId.get(at)?.leaderId) {
    seen.add(at);
    chain.push(at);
  }
  return chain;
}

/** The nodes shown, in order, with their depth: the tops, and the people of every open node below it. */
export function visibleRows(tree: PyramidTree, open: ReadonlySet<string>): { node: PyramidNode; depth: number }[] {
  const rows: { node: PyramidNode; depth: number }[] = [];
  const visit = (node: PyramidNode, depth: number) => {
    rows.push({ node, depth });
    if (open.has(node.id)) for (const child of tree.children.get(node.id) ?? []) visit(child, depth + 1);
  };
  tree.roots.forEach((root) => visit(root, 0));
  return rows;
}
