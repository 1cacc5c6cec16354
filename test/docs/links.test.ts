/**
 * Every relative link of the README and the guides resolves, in the three
 * places a reader follows it:
 * - in the repository: the file exists, and a `#fragment` names a heading of
 *   the target (GitHub's and typedoc's slug of the heading text);
 * - in the npm tarball: the target is one of the files package.json ships
 *   (`files`), so links resolve in node_modules/forecastmodel;
 * - on the typedoc site: a linked guide (`.md`) is one of typedoc.json's
 *   `projectDocuments` (typedoc then links to its page instead of copying
 *   the raw file; other files are copied and open as they are).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./samples.js";

function markdownPages(): string[] {
  const pages = ["README.md"];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(REPO, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (path !== join("docs", "api")) walk(path);
      } else if (entry.name.endsWith(".md")) pages.push(path);
    }
  };
  walk("docs");
  return pages.sort();
}

/** Links in prose: fenced blocks and inline code are not links. */
function relativeLinks(page: string): { target: string; fragment: string | null }[] {
  const text = readFileSync(join(REPO, page), "utf8").replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  const links: { target: string; fragment: string | null }[] = [];
  for (const m of text.matchAll(/\]\((?!https?:|mailto:)([^)#\s]*)(#[^)\s]*)?\)/g)) {
    links.push({ target: m[1] as string, fragment: m[2] === undefined ? null : (m[2] as string).slice(1) });
  }
  return links;
}

/** The anchors of a markdown page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(path: string): Set<string> {
  const text = readFileSync(path, "utf8").replace(/```[\s\S]*?```/g, "");
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = (m[1] as string)
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .trim()
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Whether package.json's `files` ships a repository path (entries are folders, files or `dir/*.ext` globs). */
function shipped(path: string, files: readonly string[]): boolean {
  return files.some((entry) => {
    if (entry.includes("*")) {
      const [dir, pattern] = [dirname(entry), entry.slice(dirname(entry).length + 1)];
      const re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`);
      return dirname(path) === dir && re.test(path.slice(dir.length + 1));
    }
    return path === entry || path.startsWith(`${entry}/`);
  });
}

const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { files: string[] };
const typedoc = JSON.parse(readFileSync(join(REPO, "typedoc.json"), "utf8")) as { projectDocuments?: string[]; readme?: string };
const pages = markdownPages();

describe("relative links of the README and the guides", () => {
  it("finds the pages and their links", () => {
    expect(pages).toContain("README.md");
    expect(pages).toContain("docs/forecasting.md");
    expect(relativeLinks("README.md").length).toBeGreaterThan(5);
  });

  it.each(pages)("%s: every target exists, and every #fragment is a heading of it", (page) => {
    for (const { target, fragment } of relativeLinks(page)) {
      const path = target === "" ? join(REPO, page) : resolve(dirname(join(REPO, page)), target);
      expect(existsSync(path), `${page} links to ${target}`).toBe(true);
      if (fragment !== null && path.endsWith(".md")) {
        expect([...headingAnchors(path)], `${page} links to ${target}#${fragment}`).toContain(fragment);
      }
    }
  });

  // npm always ships the README
  it.each(pages.filter((p) => p === "README.md" || shipped(p, pkg.files)))("%s: every target is in the npm tarball", (page) => {
    for (const { target } of relativeLinks(page)) {
      if (target === "") continue;
      const path = relative(REPO, resolve(dirname(join(REPO, page)), target));
      const isDir = existsSync(join(REPO, path)) && statSync(join(REPO, path)).isDirectory();
      expect(isDir || shipped(path, pkg.files), `${page} links to ${target} (${path}), which package.json's files does not ship`).toBe(true);
    }
  });

  it.each(pages)("%s: every linked guide is a page of the typedoc site", (page) => {
    const documents = typedoc.projectDocuments ?? [];
    for (const { target } of relativeLinks(page)) {
      const path = target === "" ? page : relative(REPO, resolve(dirname(join(REPO, page)), target));
      if (!path.startsWith("docs/") || !path.endsWith(".md")) continue;
      expect(path === typedoc.readme || shipped(path, documents), `${page} links to ${path}, not in typedoc.json's projectDocuments`).toBe(true);
    }
  });
});
