"""CleanedPaper → token windows (the paper's 512 tokens with 100 overlap), section-aware.

Rules:
* Tokens are counted with the embedding model's tokenizer (``TokenCounter``); no chunk's
  ``counter.count(text)`` exceeds ``max_tokens``.
* Windows never cross a section of another kind; references are not chunked at all (they are
  stored with the paper); the title line is metadata, not a chunk.
* Packing: consecutive *body* sections are packed into one group while the group fits in one
  window and the group or the next section is short (< ``max_tokens // 4`` tokens). A heading-only
  section ("2. Methods") thus rides with the subsection that follows instead of becoming a
  ten-token chunk; two substantial sections are never mixed. A packed chunk's ``section`` lists
  the headings joined by " | ".
* Inside a group, consecutive windows overlap by ``overlap`` tokens (snapped to the nearest word
  start, so the overlap can differ by the pieces of one word).
* A window ends at a sentence start when one lies in its last 15%; otherwise at the last word
  start that fits (never inside a word, so never inside 87Sr/86Sr or a word piece). Only a single
  "word" longer than a whole window is cut between its word pieces.
* Offsets are exact: ``cleaned.text[c.char_start:c.char_end] == c.text``; chunk text is trimmed
  of surrounding whitespace. Ids come from ``contract.chunk_id`` (paper, ordinal, text).
"""

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from geo_rag_runtime import contract
from geo_rag_runtime.models import Chunk, CleanedPaper, CleanSection
from geo_rag_runtime.text.keyword_terms import normalize_tokens
from geo_rag_runtime.text.sentences import split_sentences
from geo_rag_runtime.text.tokenizer import TokenCounter

__all__ = ["chunk_paper", "SENTENCE_WINDOW", "SECTION_JOINER"]

SENTENCE_WINDOW = 0.15  # prefer a sentence boundary within the last 15% of a window
SECTION_JOINER = " | "
CHUNKED_KINDS = ("abstract", "body", "captions", "tables")


@dataclass
class _Group:
    headings: list[str]
    kind: str
    start: int  # char offsets into cleaned.text
    end: int
    tokens: int


def _groups(cleaned: CleanedPaper, counter: TokenCounter, max_tokens: int) -> list[_Group]:
    """Sections to chunk, in reading order, with short adjacent body sections packed together."""
    short = max(1, max_tokens // 4)
    groups: list[_Group] = []
    for section in cleaned.sections:
        if section.kind not in CHUNKED_KINDS or not section.text.strip():
            continue
        size = counter.count(section.text)
        if size == 0:
            continue
        last = groups[-1] if groups else None
        if (
            last is not None
            and section.kind == "body"
            and last.kind == "body"
            and last.tokens + size <= max_tokens
            and (last.tokens < short or size < short)
            and _contiguous(cleaned, last, section)
        ):
            last.headings.append(section.heading)
            last.end = section.char_end
            # recount the joined text: tokens of a concatenation need not be the sum
            last.tokens = counter.count(cleaned.text[last.start : last.end])
            if last.tokens <= max_tokens:
                continue
            last.headings.pop()
            last.end = _previous_end(cleaned, section)
            last.tokens = counter.count(cleaned.text[last.start : last.end])
        groups.append(_Group([section.heading], section.kind, section.char_start, section.char_end, size))
    return groups


def _contiguous(cleaned: CleanedPaper, group: _Group, section: CleanSection) -> bool:
    """Only whitespace between the group and the next section (packing never skips text)."""
    return cleaned.text[group.end : section.char_start].strip() == ""


def _previous_end(cleaned: CleanedPaper, section: CleanSection) -> int:
    end = section.char_start
    while end > 0 and cleaned.text[end - 1].isspace():
        end -= 1
    return end


def _windows(
    text: str,
    spans: list[tuple[int, int]],
    counter: TokenCounter,
    max_tokens: int,
    overlap: int,
) -> list[tuple[int, int]]:
    """Token-index windows ``[s, e)`` over ``spans`` (token offsets into ``text``)."""
    n = len(spans)
    if n == 0:
        return []
    # word starts: tokens preceded by whitespace (or the text start) — the only safe cut points
    word_starts = [i for i, (a, _) in enumerate(spans) if i == 0 or a == 0 or text[a - 1].isspace()]
    sentence_starts_chars = {a for a, _ in split_sentences(text)}
    sentence_starts = [i for i in word_starts if spans[i][0] in sentence_starts_chars]
    slack = max(1, int(max_tokens * SENTENCE_WINDOW))

    def fits(s: int, e: int) -> bool:
        return counter.count(text[spans[s][0] : spans[e - 1][1]]) <= max_tokens

    windows: list[tuple[int, int]] = []
    s = 0
    while True:
        limit = min(s + max_tokens, n)
        if limit == n and fits(s, n):
            windows.append((s, n))
            return windows
        e = _cut(s, limit, word_starts, sentence_starts, slack)
        while not fits(s, e):  # a recount above the limit (rare): step back one word / piece
            e = _cut(s, e - 1, word_starts, sentence_starts, 0) if e - 1 > s else s + 1
            if e == s + 1:
                break
        windows.append((s, e))
        if e >= n:
            return windows
        s = _next_start(s, e, overlap, word_starts)


def _cut(s: int, limit: int, word_starts: list[int], sentence_starts: list[int], slack: int) -> int:
    """End (exclusive) of a window starting at token ``s`` that may reach token ``limit``."""
    if slack:
        k = bisect_right(sentence_starts, limit) - 1
        if k >= 0 and sentence_starts[k] > s and sentence_starts[k] >= limit - slack:
            return sentence_starts[k]
    k = bisect_right(word_starts, limit) - 1
    if k >= 0 and word_starts[k] > s:
        return word_starts[k]
    return limit  # one "word" longer than the window: cut between its word pieces


def _next_start(s: int, e: int, overlap: int, word_starts: list[int]) -> int:
    """Start of the next window: the word start nearest to ``e - overlap``, after ``s``."""
    if overlap == 0:
        return e
    target = e - overlap
    k = bisect_left(word_starts, target)
    candidates = [word_starts[j] for j in (k - 1, k) if 0 <= j < len(word_starts)]
    candidates = [c for c in candidates if s < c < e]
    if not candidates:
        later = [w for w in word_starts[bisect_right(word_starts, s) :] if w < e]
        return later[0] if later else max(target, s + 1)
    return min(candidates, key=lambda c: (abs(c - target), c))


def chunk_paper(
    cleaned: CleanedPaper, counter: TokenCounter, max_tokens: int = 512, overlap: int = 100
) -> list[Chunk]:
    """Split a cleaned paper into overlapping token windows with exact offsets and stable ids."""
    if max_tokens <= 0:
        raise ValueError(f"max_tokens must be positive, got {max_tokens}")
    if overlap < 0 or overlap >= max_tokens:
        raise ValueError(f"overlap must be >= 0 and < max_tokens ({max_tokens}), got {overlap}")

    chunks: list[Chunk] = []
    for group in _groups(cleaned, counter, max_tokens):
        text = cleaned.text[group.start : group.end]
        spans = counter.token_spans(text)
        for s, e in _windows(text, spans, counter, max_tokens, overlap):
            start, end = group.start + spans[s][0], group.start + spans[e - 1][1]
            chunk_text = cleaned.text[start:end]
            ordinal = len(chunks)
            chunks.append(
                Chunk(
                    chunk_id=contract.chunk_id(cleaned.paper_id, ordinal, chunk_text),
                    paper_id=cleaned.paper_id,
                    source_file=cleaned.source_file,
                    title=cleaned.title,
                    section=SECTION_JOINER.join(h for h in group.headings if h),
                    ordinal=ordinal,
                    char_start=start,
                    char_end=end,
                    token_count=counter.count(chunk_text),
                    text=chunk_text,
                    tokens=normalize_tokens(chunk_text),
                    page_start=page_at(cleaned.page_marks, start),
                    page_end=page_at(cleaned.page_marks, max(start, end - 1)),
                )
            )
    return chunks


def page_at(marks: Sequence[tuple[int, int]], offset: int) -> int | None:
    """The PDF page of the character at ``offset``: the last page mark at or before it (None before
    the first mark, e.g. the title line, or when the TEI had no coordinates)."""
    index = bisect_right([at for at, _ in marks], offset) - 1
    return marks[index][1] if index >= 0 else None
