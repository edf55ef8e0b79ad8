"""The greeting-card skill: one question (who the card is from), then a text artifact and
a data artifact, with a progress update on the way (seen by a stream)."""

from __future__ import annotations

from a2a_app import Outcome, SkillContext, data_artifact, skill, text_artifact


@skill(
    "greeting-card",
    name="Write a greeting card",
    description="Writes a short greeting card for an occasion; asks who it is from.",
    tags=["card", "greeting"],
    examples=["A birthday card for Anna", "A thank-you card for the team"],
)
def greeting_card(ctx: SkillContext) -> Outcome:
    if not ctx.is_follow_up:
        ctx.state["occasion"] = ctx.text.strip()
        return ctx.ask("Who is the card from?", missing=["sender"])
    sender = ctx.text.strip()
    ctx.progress("Writing the card…")
    card = f"{ctx.state['occasion']}: all the best, and many happy returns! From {sender}."
    return ctx.complete(
        artifacts=[
            text_artifact(card, name="card"),
            data_artifact({"occasion": ctx.state["occasion"], "from": sender}, name="details"),
        ]
    )
