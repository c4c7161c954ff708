"""The word_count tool: reads {"text": ...} as JSON on stdin, writes the counts as JSON.

Words are runs of non-whitespace, lines are counted as str.splitlines() does (a last line
without a newline counts), characters are code points.
"""

import json
import sys


def main() -> int:
    args = json.load(sys.stdin)
    text = args.get("text")
    if not isinstance(text, str):
        print("word_count: `text` must be a string", file=sys.stderr)
        return 2
    counts = {
        "words": len(text.split()),
        "lines": len(text.splitlines()),
        "characters": len(text),
    }
    json.dump(counts, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
