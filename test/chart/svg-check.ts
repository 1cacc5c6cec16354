/**
 * A small, strict well-formedness checker for the SVG the chart module emits:
 * balanced tags, quoted attributes, only known entities, no raw `<`/`&` in text,
 * and every numeric geometry attribute / path coordinate finite.
 */

export interface SvgElement {
  name: string;
  attrs: Record<string, string>;
  text: string;
}

const ENTITY = /&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;
const NUMERIC_ATTRS = new Set(["x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "width", "height", "dy"]);

function checkText(text: string, where: string): void {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "<") throw new Error(`raw '<' in ${where}`);
    if (c === "&") {
      ENTITY.lastIndex = i;
      if (!ENTITY.test(text)) throw new Error(`bad entity in ${where} at ${text.slice(i, i + 10)}`);
    }
  }
}

/** Parses the SVG text into a flat element list (document order); throws on malformed input. */
export function parseSvg(svg: string): SvgElement[] {
  const elements: SvgElement[] = [];
  const stack: SvgElement[] = [];
  let i = 0;
  const tag = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  const attr = /\s+([\w:-]+)="([^"<]*)"/g;
  while (i < svg.length) {
    const lt = svg.indexOf("<", i);
    const text = lt < 0 ? svg.slice(i) : svg.slice(i, lt);
    checkText(text, "text");
    if (text.trim() !== "") {
      const top = stack[stack.length - 1];
      if (top === undefined) throw new Error(`text outside the root element: ${text.slice(0, 20)}`);
      top.text += text;
    }
    if (lt < 0) break;
    tag.lastIndex = lt;
    const m = tag.exec(svg);
    if (m === null) throw new Error(`malformed tag at ${svg.slice(lt, lt + 40)}`);
    const [, close, name, attrText, selfClose] = m as unknown as [string, string, string, string, string];
    if (close === "/") {
      const open = stack.pop();
      if (open === undefined || open.name !== name) throw new Error(`unbalanced </${name}>`);
    } else {
      if (stack.length === 0 && elements.length > 0) throw new Error("more than one root element");
      const attrs: Record<string, string> = {};
      for (const a of attrText.matchAll(attr)) {
        const key = a[1] as string;
        if (key in attrs) throw new Error(`duplicate attribute ${key} on <${name}>`);
        checkText(a[2] as string, `attribute ${key}`);
        attrs[key] = a[2] as string;
      }
      const el: SvgElement = { name, attrs, text: "" };
      elements.push(el);
      if (selfClose !== "/") stack.push(el);
    }
    i = tag.lastIndex;
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack[stack.length - 1]?.name}>`);
  return elements;
}

/** All numbers in geometry attributes and path data; throws if one is not finite. */
export function checkGeometry(elements: readonly SvgElement[]): number[] {
  const nums: number[] = [];
  for (const el of elements) {
    for (const [k, v] of Object.entries(el.attrs)) {
      if (NUMERIC_ATTRS.has(k)) {
        const num = Number(v.replace(/em$/, ""));
        if (!Number.isFinite(num)) throw new Error(`non-finite ${k}="${v}" on <${el.name}>`);
        nums.push(num);
      }
      if (k === "d") {
        if (!/^(?:[MLZ]\s*|-?\d+(?:\.\d+)?\s*)*$/.test(v)) throw new Error(`odd path data ${v.slice(0, 60)}`);
        for (const t of v.match(/-?\d+(?:\.\d+)?/g) ?? []) nums.push(Number(t));
      }
      if (k === "viewBox" || k === "points") {
        for (const t of v.split(/[\s,]+/)) {
          if (!Number.isFinite(Number(t))) throw new Error(`non-finite ${k}`);
        }
      }
    }
  }
  return nums;
}

/** Pairs (x, y) of a path's points, in order. */
export function pathPoints(d: string): [number, number][] {
  const nums = (d.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
  const pts: [number, number][] = [];
  for (let i = 0; i + 1 < nums.length; i += 2) pts.push([nums[i] as number, nums[i + 1] as number]);
  return pts;
}
