"""Where a gzip file's data ends: how many bytes follow its last complete member, for messages."""

# Why: Python's gzip reads on after a member, looking for another; bytes that follow the data
# (a download with an error page appended, two files pasted together) made it say "Not a
# gzipped file", which the bundle reader passed on as "the file is not gzip-compressed" for a
# file that is. Counting them lets the message say what is wrong.

from __future__ import annotations

import zlib
from typing import BinaryIO

CHUNK = 1 << 20  # bytes read, and bytes of output made, per step: memory stays bounded
MAGIC = b"\x1f\x8b"
GZIP_WBITS = 31  # zlib with gzip framing (header and CRC trailer checked)


def after_the_data(stream: BinaryIO, max_output: int) -> str | None:
    """What a reader says when complete gzip data has bytes after it; None when it has none
    (the data itself is what is wrong, or it can't be told)."""
    extra = trailing(stream, max_output)
    if not extra:
        return None
    return (
        f"the bundle has {extra:,} byte{'s' if extra != 1 else ''} after the end of its gzip "
        "data (appended to it, or two files joined); copy or export it again"
    )


def trailing(stream: BinaryIO, max_output: int) -> int | None:
    """How many bytes follow the end of the last complete gzip member (members may follow one
    another, as gzip allows), or None: no member is complete, the stream can't be re-read, or
    it decompresses past `max_output` (the reader's own limit: nothing is unpacked twice)."""
    try:
        stream.seek(0)
        end = _members_end(stream, max_output)
        total = stream.seek(0, 2)
    except (OSError, ValueError, zlib.error):
        return None
    return None if end is None or total <= end else total - end


def _members_end(stream: BinaryIO, max_output: int) -> int | None:
    """The offset just past the last complete member; None when there is none."""
    end, produced, position = None, 0, 0  # position: the stream offset of buffer[0]
    inflater = zlib.decompressobj(GZIP_WBITS)
    buffer = stream.read(CHUNK)
    while buffer:
        try:
            produced += len(inflater.decompress(buffer, CHUNK))  # output discarded: counted
        except zlib.error:
            return end  # a later member that is not one: the data ended at the last good one
        if produced > max_output + CHUNK:
            return None
        if inflater.eof:
            rest = inflater.unused_data
            end = position = position + len(buffer) - len(rest)
            while len(rest) < len(MAGIC) and (more := stream.read(CHUNK)):
                rest += more
            if rest[: len(MAGIC)] != MAGIC:
                return end  # what follows is not another member
            inflater, buffer = zlib.decompressobj(GZIP_WBITS), rest
        elif inflater.unconsumed_tail:  # the output step was full: the same input goes on
            position += len(buffer) - len(inflater.unconsumed_tail)
            buffer = inflater.unconsumed_tail
        else:
            position += len(buffer)
            buffer = stream.read(CHUNK)
    return end
