"""Render kueue-bot's threaded answer, as the demo produces it, to a picture for the README.

    .venv/bin/python tools/render_answer.py            # docs/threaded-answer.html and docs/threaded-answer.png

Run by hand when the answer changes; it is not part of the project, its tests or CI, and the project does not
depend on what it needs: a Chromium on PATH (Debian: apt-get install chromium fonts-lato fonts-noto-color-emoji;
Lato is Slack's typeface, Noto Color Emoji draws the emoji). It needs nothing beyond `pip install -e .` in Python.

What it does:
1. runs the demo in process, as `python -m bot demo` does (bot.demo.run: the real HTTP server with Bolt, the
   engine and the watcher, against the Slack stand-in bot.standin.FakeSlack and the bundled demo cluster), and
   asks "why is vit-large-finetune pending?" as an @mention of kueue-bot in #ml-platform, from the user "alice";
2. takes the question and the bot's reply in its thread from the stand-in's message store, Block Kit and all;
3. renders them as a self-contained HTML page that imitates a Slack thread (an honest imitation: Slack-like CSS,
   not Slack's client); the times shown are the demo cluster's clock, the one the answer's ages are computed at;
4. screenshots the page with headless Chromium, 900 CSS px wide and exactly as tall as the thread, at a device
   scale factor of 2 (1 when the PNG would be over 600 KB). The height is measured by a first Chromium run
   (--dump-dom of the page with a measuring script added), so no image library is needed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import io
import logging
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.demo import run as demo
from bot.demo.source import DemoSource
from bot.demo.text import EMOJI, Style, unescape
from bot.standin.model import Message
from bot.standin.slack import FakeSlack

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "why is vit-large-finetune pending?"
USER_NAME = "alice"
WIDTH = 900
SCALE = 2.0
MAX_BYTES = 600 * 1024
CHROMIUM_TIMEOUT = 120.0

Block = Mapping[str, Any]

# --- 1, 2. the demo, in process ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Thread:
    channel_name: str
    users: dict[str, str]  # user ID -> name, for mentions
    question: Message
    question_at: datetime  # the demo clock when the question was asked
    reply: Message  # the bot's reply in the question's thread, as it stands at the end (after any edit)
    reply_at: datetime


async def capture(question: str, language: str) -> Thread:
    """Ask `question` as an @mention in #ml-platform, the way the demo's chat does, and return the thread."""
    async with FakeSlack() as slack:
        locale = "fr-FR" if language == "fr" else "en-US"
        # The demo's user ID (the demo cluster's kueue-bot.io/notify annotations name it), called alice here.
        slack.add_user(demo.USER, name=USER_NAME, real_name="Alice", email="alice@example.com", locale=locale)
        slack.add_channel(demo.CHANNEL, demo.CHANNEL_NAME, members=[demo.USER])
        with tempfile.TemporaryDirectory(prefix="kueue-bot-render-") as state_dir:
            source = DemoSource.load(real_time=False)
            server = demo._build(demo._settings(slack, state_dir, language), source)
            await server.start()
            printed = io.StringIO()  # what the demo would print: only shown when the bot does not answer
            transcript = demo.Transcript(slack, printed, Style())
            chat = demo.Chat(slack, server, source, transcript, echo=False)
            answers_logger = logging.getLogger("bot.slack.app")
            answers_logger.setLevel(logging.INFO)  # the "question answered" record tells the chat it is over
            answers_logger.addHandler(chat.answers)
            follower = asyncio.create_task(chat.follow(), name="render-follow")
            try:
                asked_at = source.clock()
                if not await chat.say(question):
                    raise SystemExit(f"render_answer: kueue-bot did not answer {question!r}:\n{printed.getvalue()}")
                answered_at = source.clock()
            finally:
                follower.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await follower
                answers_logger.removeHandler(chat.answers)
                await server.stop()
        bot_user = slack.identity.bot_user_id
        asked = [m for m in slack.messages(demo.CHANNEL) if m.user == demo.USER and not m.is_reply]
        if not asked:
            raise SystemExit("render_answer: the question is not in the stand-in's store")
        parent = asked[-1]
        replies = [m for m in slack.thread(demo.CHANNEL, parent.ts) if m.user == bot_user]
        if not replies:
            raise SystemExit("render_answer: kueue-bot answered, but not in the question's thread")
        users = {demo.USER: USER_NAME, bot_user: slack.identity.bot_name}
        return Thread(demo.CHANNEL_NAME, users, parent, asked_at, replies[0], answered_at)


# --- 3. mrkdwn and Block Kit to HTML ---------------------------------------------------------------------------

EMOJI_HTML = {**EMOJI, "rocket": "🚀", "mag": "🔍", "tada": "🎉", "bulb": "💡", "clock3": "🕒"}
_PRE = re.compile(r"```\n?(.*?)```", re.DOTALL)
_CODE = re.compile(r"`([^`\n]+)`")
_ANGLE = re.compile(r"<([^<>\n]+)>")
_TOKEN = re.compile("\x00([0-9]+)\x00")
_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_STRIKE = re.compile(r"(?<![\w~])~(?=\S)([^~\n]+?)(?<=\S)~(?![\w~])")
_EMOJI = re.compile(r":([a-z0-9_+-]+):")
_SAFE_URL = re.compile(r"^(https?|mailto):", re.IGNORECASE)


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def emoji(text: str) -> str:
    """Shortcodes to Unicode emoji (unknown ones stay as they are); `text` is already HTML."""
    return _EMOJI.sub(lambda m: EMOJI_HTML.get(m.group(1), m.group(0)), text)


def _angle(inner: str, users: Mapping[str, str]) -> str:
    target, _, label = inner.partition("|")
    if target.startswith("@"):
        return f'<span class="mention">@{esc(label or users.get(target[1:], target[1:]))}</span>'
    if target.startswith("#"):
        return f'<span class="mention">#{esc(label or target[1:])}</span>'
    if target.startswith("!"):
        return f'<span class="mention">@{esc(label or target[1:].split("^")[0])}</span>'
    shown = esc(unescape(label or target))
    if not _SAFE_URL.match(target):
        return shown
    return f'<a href="{esc(unescape(target))}">{shown}</a>'


def mrkdwn(text: str, users: Mapping[str, str]) -> str:
    """Slack mrkdwn to HTML: code blocks, `code`, <links|label>, mentions, *bold*, _italic_, ~strike~, emoji,
    > quotes and line breaks. Everything else is escaped. Code and links are set aside first: nothing inside
    them is formatting."""
    kept: list[str] = []

    def keep(fragment: str) -> str:
        kept.append(fragment)
        return f"\x00{len(kept) - 1}\x00"

    text = text.replace("\x00", "")
    text = _PRE.sub(lambda m: keep(f'<pre class="pre">{esc(unescape(m.group(1)))}</pre>'), text)
    text = _CODE.sub(lambda m: keep(f"<code>{esc(unescape(m.group(1)))}</code>"), text)
    text = _ANGLE.sub(lambda m: keep(_angle(m.group(1), users)), text)
    text = emoji(html.escape(unescape(text), quote=False))
    text = _BOLD.sub(r"<b>\1</b>", text)
    text = _ITALIC.sub(r"<i>\1</i>", text)
    text = _STRIKE.sub(r"<s>\1</s>", text)
    lines = []
    for line in text.split("\n"):
        quoted = line.startswith("&gt; ") or line == "&gt;"
        lines.append(f'<span class="quote">{line[5:]}</span>' if quoted else line)
    text = "<br>".join(lines)
    while _TOKEN.search(text):
        text = _TOKEN.sub(lambda m: kept[int(m.group(1))], text)
    return text


def text_object(value: object, users: Mapping[str, str]) -> str:
    if not isinstance(value, Mapping):
        return ""
    raw = str(value.get("text") or "")
    if value.get("type") == "mrkdwn":
        return mrkdwn(raw, users)
    shown = esc(raw).replace("\n", "<br>")
    return emoji(shown) if value.get("emoji", True) else shown


def element(item: Block, users: Mapping[str, str]) -> str:
    kind = item.get("type")
    if kind == "button":
        style = item.get("style")
        extra = f" {style}" if style in ("primary", "danger") else ""
        return f'<span class="button{extra}">{text_object(item.get("text"), users)}</span>'
    if kind in ("mrkdwn", "plain_text"):
        return f'<span class="text">{text_object(item, users)}</span>'
    if kind == "image":
        return f'<span class="image-alt" title="image">{esc(str(item.get("alt_text") or "image"))}</span>'
    if kind == "overflow":
        return '<span class="button overflow">⋯</span>'
    placeholder = text_object(item.get("placeholder"), users) or esc(str(kind))
    return f'<span class="button select">{placeholder} <span class="caret">▾</span></span>'


def block(item: Block, users: Mapping[str, str]) -> str:
    kind = item.get("type")
    if kind == "header":
        return f'<div class="b-header">{text_object(item.get("text"), users)}</div>'
    if kind == "section":
        parts = []
        if item.get("text"):
            parts.append(f'<div class="s-text">{text_object(item.get("text"), users)}</div>')
        fields = [f'<div class="s-field">{text_object(f, users)}</div>' for f in item.get("fields") or []]
        if fields:
            parts.append(f'<div class="s-fields">{"".join(fields)}</div>')
        body = f'<div class="s-body">{"".join(parts)}</div>'
        accessory = item.get("accessory")
        if isinstance(accessory, Mapping):
            body += f'<div class="s-accessory">{element(accessory, users)}</div>'
        return f'<div class="b-section">{body}</div>'
    if kind == "context":
        items = [element(e, users) for e in item.get("elements") or [] if isinstance(e, Mapping)]
        return f'<div class="b-context">{"".join(items)}</div>'
    if kind == "actions":
        items = [element(e, users) for e in item.get("elements") or [] if isinstance(e, Mapping)]
        return f'<div class="b-actions">{"".join(items)}</div>'
    if kind == "divider":
        return '<div class="b-divider"></div>'
    if kind == "image":
        return f'<div class="b-image">[image: {esc(str(item.get("alt_text") or ""))}]</div>'
    return ""  # rich_text and the rest: the message's text stands for them


def body(message: Message, users: Mapping[str, str]) -> str:
    """A message's blocks, or its text when it has only Slack's own rich_text block (what a person typed)."""
    blocks = [b for b in message.blocks or [] if b.get("type") != "rich_text"]
    if not blocks:
        return block({"type": "section", "text": {"type": "mrkdwn", "text": message.text}}, users)
    return "".join(block(b, users) for b in blocks)


def clock(when: datetime) -> str:
    return f"{when.hour % 12 or 12}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}"


def avatar(name: str, *, bot: bool) -> str:
    kind = "bot" if bot else "person"
    return f'<div class="avatar {kind}" aria-hidden="true">{esc(name[:1].upper())}</div>'


def message_html(message: Message, when: datetime, thread: Thread, *, bot: bool) -> str:
    name = thread.users.get(message.user or "", message.user or "?")
    badge = '<span class="app">APP</span>' if bot else ""
    stamp = f'<time datetime="{when.isoformat()}">{clock(when)}</time>'
    return (
        f'<div class="message">{avatar(name, bot=bot)}<div class="content">'
        f'<div class="meta"><span class="name">{esc(name)}</span>{badge}{stamp}</div>'
        f'<div class="blocks">{body(message, thread.users)}</div></div></div>'
    )


CSS = """
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; background: #f3f3f3; }
body { font-family: Lato, "Liberation Sans", "DejaVu Sans", "Noto Color Emoji", sans-serif;
  font-size: 15px; line-height: 1.46668; color: #1d1c1d; -webkit-font-smoothing: antialiased; }
.page { padding: 20px; }
.panel { background: #fff; border: 1px solid rgba(29,28,29,.13); border-radius: 8px; overflow: hidden;
  box-shadow: 0 1px 3px rgba(0,0,0,.08); }
.panel-head { display: flex; align-items: baseline; gap: 8px; padding: 14px 20px;
  border-bottom: 1px solid rgba(29,28,29,.13); }
.panel-head .title { font-size: 18px; font-weight: 900; }
.panel-head .channel { font-size: 13px; color: #616061; }
.message { display: flex; padding: 8px 20px; }
.message:first-of-type { padding-top: 16px; }
.message:last-child { padding-bottom: 20px; }
.avatar { flex: 0 0 36px; width: 36px; height: 36px; border-radius: 50%; margin: 4px 12px 0 0;
  color: #fff; font-weight: 900; font-size: 17px; line-height: 36px; text-align: center; }
.avatar.person { background: #e8912d; }
.avatar.bot { background: #4a154b; }
.content { flex: 1; min-width: 0; }
.meta { display: flex; align-items: baseline; }
.name { font-weight: 900; }
.app { font-size: 10px; font-weight: 700; color: rgba(29,28,29,.7); background: rgba(29,28,29,.13);
  border-radius: 2px; padding: 0 3px; margin-left: 4px; line-height: 1.5; align-self: center; }
time { font-size: 12px; color: #616061; margin-left: 8px; }
.replies { display: flex; align-items: center; gap: 12px; padding: 6px 20px; color: #616061; font-size: 13px; }
.replies::after { content: ""; flex: 1; border-top: 1px solid rgba(29,28,29,.13); }
.blocks > div + div { margin-top: 6px; }
.b-section { display: flex; gap: 12px; }
.s-body { flex: 1; min-width: 0; }
.s-fields { display: grid; grid-template-columns: 1fr 1fr; gap: 4px 16px; }
.b-header { font-size: 18px; font-weight: 900; line-height: 1.33; }
.b-context { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 12px; line-height: 1.5; color: #616061; }
.b-context code { font-size: 11px; }
.b-actions { display: flex; flex-wrap: wrap; gap: 8px; padding: 4px 0; }
.b-divider { border-top: 1px solid rgba(29,28,29,.13); margin: 12px 0 !important; }
.blocks > .b-divider + div { margin-top: 0; }
.button { display: inline-block; height: 28px; line-height: 26px; padding: 0 12px; font-size: 13px;
  font-weight: 700; border: 1px solid rgba(29,28,29,.3); border-radius: 4px; background: #fff; white-space: nowrap; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
.button.danger { background: #e01e5a; border-color: #e01e5a; color: #fff; }
.caret { color: #616061; }
code { font-family: Monaco, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; color: #e01e5a;
  background: rgba(29,28,29,.04); border: 1px solid rgba(29,28,29,.13); border-radius: 3px; padding: 2px 3px 1px;
  white-space: nowrap; }
.pre { font-family: Monaco, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; margin: 4px 0;
  padding: 8px; background: rgba(29,28,29,.04); border: 1px solid rgba(29,28,29,.13); border-radius: 4px;
  white-space: pre-wrap; }
.quote { display: inline-block; border-left: 4px solid #ddd; padding-left: 12px; }
.mention { color: #1264a3; background: rgba(29,155,209,.1); border-radius: 3px; padding: 0 2px; }
a { color: #1264a3; text-decoration: none; }
.image-alt, .b-image { color: #616061; font-style: italic; }
"""


def page(thread: Thread) -> str:
    count = "1 reply"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width={WIDTH}">
<title>kueue-bot answers in a thread (rendered from the demo)</title>
<!-- Made by tools/render_answer.py from the demo's Slack stand-in: an imitation of Slack, not Slack. -->
<style>{CSS}</style>
</head>
<body>
<div class="page"><div class="panel">
<div class="panel-head"><span class="title">Thread</span><span class="channel"># {esc(thread.channel_name)}</span></div>
{message_html(thread.question, thread.question_at, thread, bot=False)}
<div class="replies">{count}</div>
{message_html(thread.reply, thread.reply_at, thread, bot=True)}
</div></div>
</body>
</html>
"""


# --- 4. the screenshot ------------------------------------------------------------------------------------------

_MEASURE = """<script>
const bottom = document.querySelector(".page").getBoundingClientRect().bottom;
document.documentElement.dataset.height = String(Math.ceil(bottom));
</script>
</body>"""
_HEIGHT = re.compile(r'data-height="([0-9]+)"')


def _chromium(binary: str, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="kueue-bot-chromium-") as profile:
        command = [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--hide-scrollbars",
            *args,
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT, check=False)
    if done.returncode != 0:
        raise SystemExit(f"render_answer: {binary} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done


def measure(binary: str, document: str) -> int:
    """The page's height in CSS px at WIDTH, as Chromium lays it out."""
    with tempfile.TemporaryDirectory(prefix="kueue-bot-measure-") as folder:
        probe = Path(folder) / "measure.html"
        probe.write_text(document.replace("</body>", _MEASURE, 1), encoding="utf-8")
        dom = _chromium(binary, [f"--window-size={WIDTH},1000", "--dump-dom", probe.as_uri()]).stdout
    found = _HEIGHT.search(dom)
    if found is None:
        raise SystemExit("render_answer: could not measure the page (no data-height in Chromium's DOM)")
    return int(found.group(1))


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    if header[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"render_answer: {path} is not a PNG")
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def screenshot(binary: str, page_path: Path, png: Path, height: int, scale: float) -> tuple[int, int]:
    png.unlink(missing_ok=True)
    _chromium(
        binary,
        [
            f"--window-size={WIDTH},{height}",
            f"--force-device-scale-factor={scale:g}",
            f"--screenshot={png}",
            page_path.resolve().as_uri(),
        ],
    )
    if not png.exists():
        raise SystemExit(f"render_answer: Chromium wrote no {png}")
    return png_size(png)


# --- the command ------------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--question", default=QUESTION, help=f"what alice asks (default: {QUESTION!r})")
    parser.add_argument("--lang", choices=("en", "fr"), default="en", help="the bot's language (default: en)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="the folder to write to (default: docs/)")
    parser.add_argument("--name", default="threaded-answer", help="the files' name, .html and .png")
    parser.add_argument("--scale", type=float, default=SCALE, help="device scale factor (default: 2)")
    parser.add_argument("--chromium", default=None, help="the Chromium binary (default: chromium on PATH)")
    args = parser.parse_args(argv)

    binary = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        print("render_answer: no chromium on PATH (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    demo._quiet_logs(verbose=False)
    thread = asyncio.run(capture(args.question, args.lang))

    args.out.mkdir(parents=True, exist_ok=True)
    page_path = args.out / f"{args.name}.html"
    png = args.out / f"{args.name}.png"
    document = page(thread)
    page_path.write_text(document, encoding="utf-8")
    height = measure(binary, document)
    scale = args.scale
    size = screenshot(binary, page_path, png, height, scale)
    if png.stat().st_size > MAX_BYTES and scale > 1:
        scale = 1.0
        size = screenshot(binary, page_path, png, height, scale)
    print(
        f"{page_path.relative_to(ROOT) if page_path.is_relative_to(ROOT) else page_path}\n"
        f"{png.relative_to(ROOT) if png.is_relative_to(ROOT) else png}: {size[0]}x{size[1]} px "
        f"({WIDTH}x{height} CSS px at scale {scale:g}), {png.stat().st_size / 1024:.0f} KB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
