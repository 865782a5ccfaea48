// Whether an entry typed at the prompt is unfinished, so that Enter continues it on a "> "
// line instead of running it (as bash does for `for i in 1 2 3; do` and a terminal does for an
// open bracket in a JavaScript REPL). A heuristic on the text: it errs towards running, and the
// sandbox's own parser has the last word.

const OPENERS = { if: "fi", for: "done", while: "done", until: "done", case: "esac", "{": "}" };
const CLOSERS = new Set(["fi", "done", "esac", "}"]);
// Words after which the next word is in command position again.
const LEADERS = new Set(["then", "do", "else", "elif", "if", "while", "until", "!", "{", "}"]);

// The shell: an open quote, a trailing `\`, `|`, `&&` or `||`, an open `$(`/`(`, a keyword
// still waiting for its `fi`/`done`/`esac`/`}`, or a here-document without its delimiter line.
export function shellIncomplete(text) {
  const lines = text.split("\n");
  let quote = null;
  let parens = 0;
  let arithmetic = 0; // open `((`
  let open = 0;
  let heredocs = []; // delimiters still to come, in order
  let word = "";
  let commandStart = true;
  let last = "";
  const endWord = () => {
    if (!word) return;
    if (commandStart && (OPENERS[word] || CLOSERS.has(word))) open += CLOSERS.has(word) ? -1 : 1;
    commandStart = LEADERS.has(word) && commandStart;
    last = word;
    word = "";
  };
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    if (heredocs.length && !quote) {
      const [delimiter, strip] = heredocs[0];
      if ((strip ? line.replace(/^\t+/, "") : line) === delimiter) heredocs.shift();
      continue;
    }
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quote) {
        if (c === "\\" && quote !== "'") i++;
        else if (c === quote) quote = null;
        continue;
      }
      if (c === "\\") {
        if (i === line.length - 1) return true;
        word += line[++i];
      } else if (c === "'" || c === '"' || c === "`") {
        quote = c;
        word += c;
      } else if (c === "#" && !word) {
        break;
      } else if (line.startsWith("<<<", i)) {
        endWord(); // a here-string: its word follows on the same line
        i += 2;
      } else if (line.startsWith("<<", i) && !arithmetic) { // (in `$((...))`, a shift)
        endWord();
        const match = /^<<(-?)\s*(['"]?)([^\s'";|&<>()]+)\2/.exec(line.slice(i));
        if (match) {
          heredocs.push([match[3], match[1] === "-"]);
          i += match[0].length - 1;
        }
      } else if (c === "(" || c === ")") {
        endWord();
        if (line[i + 1] === c && (c === "(" || arithmetic > 0)) { // `((` or `$((` and its `))`
          arithmetic += c === "(" ? 1 : -1;
          parens += c === "(" ? 1 : -1;
          i++;
        }
        parens += c === "(" ? 1 : -1;
        commandStart = true;
        last = c;
      } else if (";|&\n".includes(c)) {
        endWord();
        commandStart = true;
        last = line[i + 1] === c ? c + line[++i] : c;
      } else if (c === " " || c === "\t") {
        endWord();
      } else {
        word += c;
      }
    }
    endWord();
    commandStart = true;
    if (!quote && n < lines.length - 1) last = "\n";
  }
  if (quote || parens > 0 || open > 0 || heredocs.length) return true;
  return last === "|" || last === "&&" || last === "||";
}

// JavaScript: an open bracket, template literal or block comment (strings, comments and
// regular expressions are skipped as well as a scanner can without parsing).
export function javascriptIncomplete(text) {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && (c === "`" || text[j] !== "\n")) j += text[j] === "\\" ? 2 : 1;
      if (j >= text.length && c === "`") return true;
      i = j;
    } else if (text.startsWith("//", i)) {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
    } else if (text.startsWith("/*", i)) {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) return true;
      i = end + 1;
    } else if ("([{".includes(c)) {
      depth++;
    } else if (")]}".includes(c)) {
      depth--;
    }
  }
  return depth > 0;
}
