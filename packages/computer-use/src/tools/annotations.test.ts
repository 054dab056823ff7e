/**
 * The facts every tool carries, as tools/list shows them: the MCP hints of both surfaces and
 * the gate, staleness and batch facts, pinned tool by tool. A client that skips confirmation
 * for read-only tools must only ever skip it for tools that change nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeTools } from '../dispatch.ts';
import { annotationsOf, type ToolDefinition } from './define-tool.ts';
import { allTools, toolsOf } from './registry.ts';

// name → [readOnly, destructive, idempotent, openWorld] hints, then [gated, pixelChecked, batchable].
const R = true, _ = false;
const TABLE: Record<string, [boolean, boolean, boolean, boolean, boolean, boolean, boolean]> = {
  request_access: /*           */ [_, _, R, _, /**/ _, _, _],
  list_granted_applications: /**/ [R, _, R, _, /**/ _, _, _],
  screenshot: /*               */ [R, _, R, _, /**/ R, _, R],
  zoom: /*                     */ [R, _, R, _, /**/ R, _, _],
  left_click: /*               */ [_, R, _, R, /**/ R, R, R],
  double_click: /*             */ [_, R, _, R, /**/ R, R, R],
  triple_click: /*             */ [_, R, _, R, /**/ R, R, R],
  right_click: /*              */ [_, R, _, R, /**/ R, R, R],
  middle_click: /*             */ [_, R, _, R, /**/ R, R, R],
  mouse_move: /*               */ [_, R, R, R, /**/ R, _, R],
  left_click_drag: /*          */ [_, R, _, R, /**/ R, R, R],
  left_mouse_down: /*          */ [_, R, _, R, /**/ R, _, R],
  left_mouse_up: /*            */ [_, R, _, R, /**/ R, _, R],
  scroll: /*                   */ [_, R, _, R, /**/ R, R, R],
  cursor_position: /*          */ [R, _, R, _, /**/ R, _, R],
  type: /*                     */ [_, R, _, R, /**/ R, _, R],
  key: /*                      */ [_, R, _, R, /**/ R, _, R],
  hold_key: /*                 */ [_, R, _, R, /**/ R, _, R],
  open_application: /*         */ [_, R, R, R, /**/ R, _, _],
  switch_display: /*           */ [_, _, R, _, /**/ R, _, _],
  read_clipboard: /*           */ [R, _, R, _, /**/ R, _, _],
  write_clipboard: /*          */ [_, R, R, R, /**/ R, _, _],
  wait: /*                     */ [R, _, R, _, /**/ _, _, R],
  computer_batch: /*           */ [_, R, _, R, /**/ _, _, _],
  computer: /*                 */ [_, R, _, R, /**/ _, _, _],
};

const rowOf = (tool: ToolDefinition) => {
  const hints = annotationsOf(tool);
  return [hints.readOnlyHint, hints.destructiveHint, hints.idempotentHint, hints.openWorldHint, tool.gated, tool.pixelChecked, tool.batchable];
};

test('every tool of both surfaces has its pinned facts and hints', () => {
  const tools = [...new Map([...toolsOf('native'), ...toolsOf('computer')].map((tool) => [tool.name, tool])).values()];
  assert.deepEqual(tools.map((tool) => tool.name).sort(), Object.keys(TABLE).sort());
  for (const tool of tools) assert.deepEqual(rowOf(tool), TABLE[tool.name], tool.name);
});

test('read-only is exactly: screenshot, zoom, cursor_position, list_granted_applications, read_clipboard, wait', () => {
  const readOnly = Object.entries(TABLE).filter(([, row]) => row[0]).map(([name]) => name).sort();
  assert.deepEqual(readOnly, ['cursor_position', 'list_granted_applications', 'read_clipboard', 'screenshot', 'wait', 'zoom']);
});

test('tools/list carries the hints and a title on both surfaces', () => {
  for (const surface of ['native', 'computer'] as const) {
    for (const listed of describeTools({ coordinateMode: 'pixels' }, surface)) {
      const [readOnlyHint, destructiveHint, idempotentHint, openWorldHint] = TABLE[listed.name]!;
      assert.ok(listed.title.length > 0, listed.name);
      assert.deepEqual(listed.annotations, { title: listed.title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint }, listed.name);
    }
  }
});

test('a read-only tool is never destructive, and every tool that acts is', () => {
  for (const tool of [...allTools, ...toolsOf('computer')]) {
    const hints = annotationsOf(tool);
    assert.ok(!(hints.readOnlyHint && hints.destructiveHint), tool.name);
    assert.equal(hints.destructiveHint, tool.effect === 'acts', tool.name);
  }
});
