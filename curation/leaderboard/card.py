"""The model leaderboard as a section of a release's dataset card (Markdown)."""

from __future__ import annotations


def _interval(ci, digits: int = 0) -> str:
    return "n/a" if not ci else f"{ci[0]:.{digits}f} – {ci[1]:.{digits}f}"


def leaderboard_card_section(board: dict | None, *, scope: str) -> str:
    """``## Which model wins?``: ratings with intervals, comparisons and the method, or why there is no table.

    ``board`` is ``Leaderboard.as_dict()`` (None with fewer than two models); ``scope`` names the ratings counted.
    """
    lines = ["## Which model wins? (human preferences)", ""]
    if not board:
        return "\n".join(lines + [f"No leaderboard: fewer than two models were compared in {scope}.", ""])
    lines += [
        f"Method: {board['method']}; {board['comparisons']} human ratings in {scope}, {board['bootstrap']} resamples.",
        "",
        "| Rank | Model | Rating | 95% interval | Comparisons | Score (ties ½) |",
        "|---:|---|---:|---|---:|---:|",
    ]
    for entry in board["models"]:
        score = "n/a" if entry["score"] is None else f"{100 * entry['score']:.1f}%"
        model = entry["model"].replace("|", "\\|")
        lines.append(f"| {entry['rank']} | {model} | {entry['rating']:.0f} | {_interval(entry['rating_ci95'])} "
                     f"| {entry['comparisons']} | {score} |")
    lines += ["", f"Raters' pull towards the response shown on the left: {board['left_advantage']:.0f} rating points "
              f"(95% interval {_interval(board['left_advantage_ci95'])}); the ratings are net of it."]
    lines += [f"Note: {note}." for note in board["notes"]]
    return "\n".join(lines + [""])
