"""The skills of the agent page's browser test.

greeting-card: one question (who the card is from), then a text artifact and a data
artifact, with a progress update on the way (seen by a stream). poem: a progress update,
then three seconds of work before it completes (a stream left open for that long).
"""

from __future__ import annotations

import time

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


@skill(
    "poem",
    name="Write a poem",
    description="Writes a short poem about a subject; takes a few seconds.",
    tags=["poem", "verse"],
    examples=["A poem about the sea"],
)
def poem(ctx: SkillContext) -> Outcome:
    ctx.progress("Looking for a rhyme…")
    time.sleep(3)
    return ctx.complete(f"{ctx.text.strip()}:\nthe words came slowly,\nbut they came.", name="poem")
