#!/usr/bin/env python3
"""Renders one Mermaid file to PNG with the real mermaid.js in headless Chromium, offline, and says whether it
rendered: prints "ok WIDTHxHEIGHT" or "error: WHY" and exits 0 or 1.

usage: render-mermaid.py MERMAID_JS DIAGRAM.mmd OUT.png [--expect TEXT]...

--expect TEXT: the rendered diagram must show TEXT literally (server text that must appear as text, not as markup).
The page also fails when the SVG holds an element a server could have smuggled in (img, script, iframe, a link)
or an on* attribute."""
import json
import os
import re
import subprocess
import sys
import tempfile

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<style>html, body { margin: 0; background: #fff; }</style>
<script src="%(js)s"></script></head><body><div id="out"></div><script>
const text = %(text)s, expected = %(expected)s;
mermaid.initialize({startOnLoad: false, securityLevel: 'strict', theme: 'default', sequence: {useMaxWidth: false}});
mermaid.render('diagram', text).then(({svg}) => {
  const out = document.getElementById('out');
  out.innerHTML = svg;
  const root = out.firstElementChild, box = root.getBoundingClientRect();
  const smuggled = root.querySelectorAll('img, script, iframe, object, embed, a, foreignObject *[onerror], foreignObject *[onload]');
  const handlers = [...root.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on')));
  const shown = root.textContent;
  const missing = expected.filter(t => !shown.includes(t));
  if (smuggled.length || handlers.length) document.title = 'error: markup from the text reached the SVG';
  else if (missing.length) document.title = 'error: not shown literally: ' + JSON.stringify(missing);
  else document.title = 'ok ' + Math.ceil(box.width) + 'x' + Math.ceil(box.height);
}).catch(e => { document.title = 'error: ' + String(e && e.message || e).replace(/\\s+/g, ' '); });
</script></body></html>"""


def main():
    args = sys.argv[1:]
    expected = []
    while '--expect' in args:
        i = args.index('--expect')
        expected.append(args[i + 1])
        del args[i:i + 2]
    js, source, png = args
    text = open(source, encoding='utf-8').read()
    with tempfile.TemporaryDirectory() as work:
        page = os.path.join(work, 'page.html')
        with open(page, 'w', encoding='utf-8') as f:
            # "<" as \u003c: a "</script>" in the diagram or the expected text must not end the page's script.
            f.write(PAGE % {'js': 'file://' + os.path.abspath(js), 'text': json.dumps(text).replace('<', '\\u003c'),
                            'expected': json.dumps(expected).replace('<', '\\u003c')})
        chromium = ['chromium', '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--user-data-dir=' + work,
                    '--allow-file-access-from-files', '--force-device-scale-factor=1', '--hide-scrollbars',
                    '--virtual-time-budget=20000']
        dom = subprocess.run(chromium + ['--dump-dom', 'file://' + page], capture_output=True, text=True, timeout=120).stdout
        title = re.search(r'<title>(.*?)</title>', dom, re.S)
        verdict = title.group(1) if title else 'error: the page never finished (no title)'
        size = re.fullmatch(r'ok (\d+)x(\d+)', verdict)
        if not size:
            print(verdict)
            return 1
        width, height = int(size.group(1)), int(size.group(2))
        subprocess.run(chromium + ['--window-size=%d,%d' % (width, height), '--screenshot=' + os.path.abspath(png), 'file://' + page],
                       capture_output=True, timeout=120)
        if not os.path.exists(png) or os.path.getsize(png) == 0:
            print('error: no screenshot')
            return 1
        print(verdict)
        return 0


if __name__ == '__main__':
    sys.exit(main())
