"""Block Kit validation as Slack's Web API applies it, independent of the bot's own renderer.

`block_errors(blocks, max_blocks=50)` returns Slack-style error strings ("must be less than 3001 characters
[json-pointer:/blocks/0/text/text]"); an empty list means Slack would accept the blocks. The limits are the
documented ones (https://docs.slack.dev/reference/block-kit/blocks); unknown block types are refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MESSAGE_MAX_BLOCKS = 50
VIEW_MAX_BLOCKS = 100

_BLOCK_TYPES = frozenset(
    {"actions", "context", "divider", "file", "header", "image", "input", "markdown", "rich_text", "section", "video"}
)
_TEXT_TYPES = frozenset({"plain_text", "mrkdwn"})
_MARKDOWN_TOTAL_MAX = 12_000


def block_errors(blocks: Any, *, max_blocks: int = MESSAGE_MAX_BLOCKS) -> list[str]:
    """Every reason Slack would refuse `blocks` with `invalid_blocks`."""
    return list(_check_blocks(blocks, max_blocks))


def _error(message: str, pointer: str) -> str:
    return f"{message} [json-pointer:{pointer}]"


def _too_long(value: Any, limit: int, pointer: str) -> Iterator[str]:
    if isinstance(value, str) and len(value) > limit:
        yield _error(f"must be less than {limit + 1} characters", pointer)


def _check_blocks(blocks: Any, max_blocks: int) -> Iterator[str]:
    if not isinstance(blocks, list):
        yield _error("must be an array", "/blocks")
        return
    if len(blocks) > max_blocks:
        yield _error(f"no more than {max_blocks} items allowed", "/blocks")
    block_ids: set[str] = set()
    markdown_total = 0
    for index, block in enumerate(blocks):
        pointer = f"/blocks/{index}"
        if not isinstance(block, dict) or block.get("type") not in _BLOCK_TYPES:
            yield _error("unsupported type", pointer)
            continue
        block_id = block.get("block_id")
        if block_id is not None:
            yield from _too_long(block_id, 255, f"{pointer}/block_id")
            if block_id in block_ids:
                yield _error(f"duplicate block_id {block_id!r}", f"{pointer}/block_id")
            block_ids.add(block_id)
        if block["type"] == "markdown":
            markdown_total += len(block.get("text", ""))
            if markdown_total > _MARKDOWN_TOTAL_MAX:
                yield _error(f"markdown blocks must total less than {_MARKDOWN_TOTAL_MAX + 1} characters", pointer)
        yield from _BLOCK_CHECKS.get(block["type"], _no_check)(block, pointer)


def _no_check(_: dict[str, Any], __: str) -> Iterator[str]:
    return iter(())


def _text_object(obj: Any, pointer: str, *, limit: int, plain_only: bool = False) -> Iterator[str]:
    if not isinstance(obj, dict) or obj.get("type") not in _TEXT_TYPES:
        yield _error("must be a text object (plain_text or mrkdwn)", pointer)
        return
    if plain_only and obj["type"] != "plain_text":
        yield _error("must be a plain_text object", f"{pointer}/type")
    text = obj.get("text")
    if not isinstance(text, str) or not text:
        yield _error("must be more than 0 characters", f"{pointer}/text")
        return
    yield from _too_long(text, limit, f"{pointer}/text")


def _section(block: dict[str, Any], pointer: str) -> Iterator[str]:
    if "text" not in block and "fields" not in block:
        yield _error("must provide text or fields", pointer)
    if "text" in block:
        yield from _text_object(block["text"], f"{pointer}/text", limit=3000)
    if "fields" in block:
        fields = block["fields"]
        if not isinstance(fields, list) or not 1 <= len(fields) <= 10:
            yield _error("must have between 1 and 10 items", f"{pointer}/fields")
        else:
            for i, field in enumerate(fields):
                yield from _text_object(field, f"{pointer}/fields/{i}", limit=2000)
    if "accessory" in block:
        yield from _element(block["accessory"], f"{pointer}/accessory")


def _header(block: dict[str, Any], pointer: str) -> Iterator[str]:
    yield from _text_object(block.get("text"), f"{pointer}/text", limit=150, plain_only=True)


def _context(block: dict[str, Any], pointer: str) -> Iterator[str]:
    elements = block.get("elements")
    if not isinstance(elements, list) or not 1 <= len(elements) <= 10:
        yield _error("must have between 1 and 10 items", f"{pointer}/elements")
        return
    for i, element in enumerate(elements):
        if isinstance(element, dict) and element.get("type") == "image":
            yield from _image_element(element, f"{pointer}/elements/{i}")
        else:
            yield from _text_object(element, f"{pointer}/elements/{i}", limit=3000)


def _actions(block: dict[str, Any], pointer: str) -> Iterator[str]:
    elements = block.get("elements")
    if not isinstance(elements, list) or not 1 <= len(elements) <= 25:
        yield _error("must have between 1 and 25 items", f"{pointer}/elements")
        return
    action_ids: set[str] = set()
    for i, element in enumerate(elements):
        yield from _element(element, f"{pointer}/elements/{i}")
        action_id = element.get("action_id") if isinstance(element, dict) else None
        if action_id is not None and action_id in action_ids:
            yield _error(f"duplicate action_id {action_id!r}", f"{pointer}/elements/{i}/action_id")
        if action_id is not None:
            action_ids.add(action_id)


def _image_block(block: dict[str, Any], pointer: str) -> Iterator[str]:
    yield from _image_element(block, pointer)
    if "title" in block:
        yield from _text_object(block["title"], f"{pointer}/title", limit=2000, plain_only=True)


def _image_element(element: dict[str, Any], pointer: str) -> Iterator[str]:
    if "image_url" not in element and "slack_file" not in element:
        yield _error("missing required field: image_url", pointer)
    yield from _too_long(element.get("image_url"), 3000, f"{pointer}/image_url")
    if not element.get("alt_text"):
        yield _error("missing required field: alt_text", pointer)
    yield from _too_long(element.get("alt_text"), 2000, f"{pointer}/alt_text")


def _element(element: Any, pointer: str) -> Iterator[str]:
    if not isinstance(element, dict) or not isinstance(element.get("type"), str):
        yield _error("must be a block element", pointer)
        return
    if element["type"] == "image":
        yield from _image_element(element, pointer)
        return
    yield from _too_long(element.get("action_id"), 255, f"{pointer}/action_id")
    if element["type"] == "button":
        yield from _text_object(element.get("text"), f"{pointer}/text", limit=75, plain_only=True)
        yield from _too_long(element.get("value"), 2000, f"{pointer}/value")
        yield from _too_long(element.get("url"), 3000, f"{pointer}/url")
        if element.get("style") not in (None, "primary", "danger"):
            yield _error("must be one of primary, danger", f"{pointer}/style")
    for i, option in enumerate(element.get("options", [])):
        if not isinstance(option, dict):
            yield _error("must be an option object", f"{pointer}/options/{i}")
            continue
        yield from _text_object(option.get("text"), f"{pointer}/options/{i}/text", limit=75)
        yield from _too_long(option.get("value"), 150, f"{pointer}/options/{i}/value")
    if "confirm" in element:
        yield from _confirm(element["confirm"], f"{pointer}/confirm")


def _confirm(confirm: Any, pointer: str) -> Iterator[str]:
    if not isinstance(confirm, dict):
        yield _error("must be a confirmation dialog object", pointer)
        return
    for key, limit in (("title", 100), ("text", 300), ("confirm", 30), ("deny", 30)):
        yield from _text_object(confirm.get(key), f"{pointer}/{key}", limit=limit)


def _markdown(block: dict[str, Any], pointer: str) -> Iterator[str]:
    if not isinstance(block.get("text"), str) or not block["text"]:
        yield _error("must be more than 0 characters", f"{pointer}/text")


_BLOCK_CHECKS = {
    "section": _section,
    "header": _header,
    "context": _context,
    "actions": _actions,
    "image": _image_block,
    "markdown": _markdown,
}
