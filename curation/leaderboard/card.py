"""The model leaderboard as a section of a release's dataset card (Markdown)."""

from __future__ import annotations


def _interval(ci, digits: int = 0) -> str:
    return "n/a" if not ci else f"{ci[0]:.{digits}f} – {ci[1]:.{digits}f}"


def leaderboard_card_section(boards: dict[str, dict | None], *, scope: str) -> str:
    """``## Which model wins?``: one board per task kind (models of different kinds are never ranked together),
    each with ratings, intervals, comparisons and the method, or why there is no table.

    ``boards`` maps a task kind to ``Leaderboard.as_dict()`` (None with fewer than two models); ``scope`` names the
    ratings counted.
    """
    lines = ["## Which model wins? (human preferences)", ""]
    if not boards:
        return "\n".join(lines + [f"No leaderboard: {scope} hold no human preference between two models.", ""])
    lines += ["One board per task kind: models of different kinds answered different prompts and are never ranked "
              "against each other.", ""]
    for kind, board in boards.items():
        lines += [f"### {kind}", "", *_board_lines(board, scope=f"the released {kind} pairs"), ""]
    return "\n".join(lines)


def _board_lines(board: dict | None, *, scope: str) -> list[str]:
    if not board:
        return [f"No leaderboard: fewer than two models were compared in {scope}."]
    lines = [
        f"Method: {board['method']}; {board['comparisons']} human ratings in {scope}, {board['bootstrap']} resamples.",
        "",
        "| Rank | Model | Rating | 95% interval | Simultaneous 95% interval | Comparisons | Score (ties ½) |",
        "|---:|---|---:|---|---|---:|---:|",
    ]
    for entry in board["models"]:
        score = "n/a" if entry["score"] is None else f"{100 * entry['score']:.1f}%"
        model = entry["model"].replace("|", "\\|")
        lines.append(f"| {entry['rank']} | {model} | {entry['rating']:.0f} | {_interval(entry['rating_ci95'])} "
                     f"| {_interval(entry.get('rating_ci_simultaneous'))} | {entry['comparisons']} | {score} |")
    if board.get("apart"):
        lines += ["", "Never compared with the models ranked above (another part of the comparison graph), so not "
                  "ranked against them:", "", "| Model | Compared only with | Comparisons | Score (ties ½) |",
                  "|---|---|---:|---:|"]
        for entry in board["apart"]:
            score = "n/a" if entry["score"] is None else f"{100 * entry['score']:.1f}%"
            model, others = (text.replace("|", "\\|") for text in (entry["model"], ", ".join(entry["compared_with"])))
            lines.append(f"| {model} | {others} | {entry['comparisons']} | {score} |")
    if board.get("position_controlled", True):
        lines += ["", f"Raters' pull towards the response shown on the left: {board['left_advantage']:.0f} rating "
                  f"points (95% interval {_interval(board['left_advantage_ci95'])}); the ratings are net of it."]
    else:
        lines += ["", "Not position-controlled: no rating of these pairs knows which side was shown on the left."]
    lines += [f"Note: {note}." for note in board["notes"]]
    return lines
