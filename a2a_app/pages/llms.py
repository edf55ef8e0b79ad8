"""``/llms.txt`` (https://llmstxt.org): the agent as a language model reads a site.

Drawn from the public agent card, like the agent page, so the two never disagree: the
same skills (enabled and public), names, descriptions and examples. A site that already
serves its own llms.txt appends :func:`agent_section` to it.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from django.http import HttpRequest
from django.utils.translation import gettext as _

from a2a_app.pages.agent import Agent, read_agent

_SPACES = re.compile(r"\s+")


def _line(text: str) -> str:
    """One line of text: a list item in Markdown cannot hold a paragraph break."""
    return _SPACES.sub(" ", str(text)).strip()


def _link_text(text: str) -> str:
    """``text`` safe inside ``[...]``: brackets and backslashes escaped."""
    return re.sub(r"([\\\[\]])", r"\\\1", _line(text))


def _auth_note(agent: Agent) -> str:
    if not agent.schemes:
        return _("no credentials needed")
    ways = "; ".join(f"{s['text']} (“{s['name']}”)" for s in agent.schemes)
    if agent.anonymous_allowed:
        return _("no credentials needed for public skills; signed-in callers send %(ways)s") % {
            "ways": ways
        }
    return _("send %(ways)s") % {"ways": ways}


def skill_link(agent: Agent, skill_id: str) -> str:
    """Where a skill is described for people: its entry on the agent page, else the card."""
    if agent.page_url:
        return f"{agent.page_url}#skill-{quote(skill_id, safe='')}"
    return agent.card_url


def render_section(agent: Agent, *, level: int = 2) -> str:
    """The agent's sections of an llms.txt, headings at ``level``."""
    hashes = "#" * level
    links = [
        f"- [{_('Agent card')}]({agent.card_url}): "
        + _(
            "the machine-readable description of this A2A v1.0 agent: skills, endpoints, "
            "security schemes"
        ),
    ]
    if agent.page_url:
        links.append(
            f"- [{_('Agent page')}]({agent.page_url}): "
            + _("for people: what the agent does, how to connect, a console to try it")
        )
    if agent.jsonrpc_url:
        links.append(
            f"- [{_('JSON-RPC endpoint')}]({agent.jsonrpc_url}): "
            + _(
                "POST JSON-RPC 2.0 with the header A2A-Version: 1.0 (SendMessage, "
                "SendStreamingMessage, GetTask, ListTasks, CancelTask); %(auth)s"
            )
            % {"auth": _auth_note(agent)}
        )
    if agent.rest_url:
        links.append(
            f"- [{_('HTTP+JSON endpoint')}]({agent.rest_url}): "
            + _("the same operations over HTTP+JSON, described by [OpenAPI](%(url)s)")
            % {"url": agent.openapi_url}
        )
    lines = [f"{hashes} {_('A2A agent')}", "", *links, "", f"{hashes} {_('Skills')}", ""]
    if not agent.skills:
        lines.append(_("No skill is published at the moment."))
    for skill in agent.skills:
        entry = f"- [{_link_text(skill.get('name') or skill.get('id'))}]"
        entry += f"({skill_link(agent, str(skill.get('id')))})"
        description = _line(skill.get("description") or "")
        if description:
            entry += f": {description}"
        examples = [_line(e) for e in skill.get("examples") or [] if _line(e)]
        if examples:
            entry += " " + _("Examples: %(examples)s") % {
                "examples": "; ".join(f"“{e}”" for e in examples)
            }
        lines.append(entry)
    return "\n".join(lines) + "\n"


def agent_section(request: HttpRequest, *, level: int = 2) -> str:
    """The agent's sections for a site's own llms.txt (headings at ``level``, H2 by
    default): links to the card, the agent page and the endpoints, then the skills."""
    return render_section(read_agent(request), level=level)


def render_document(agent: Agent) -> str:
    """A whole llms.txt: H1 name, blockquote summary, a short paragraph, the sections."""
    parts = [f"# {_line(agent.name)}", ""]
    if _line(agent.description):
        parts += [f"> {_line(agent.description)}", ""]
    about = _("%(name)s is an A2A (Agent2Agent) agent: AI agents can send it messages.") % {
        "name": _line(agent.name)
    }
    provider = agent.provider
    if provider.get("organization"):
        organization = _line(provider["organization"])
        if provider.get("url"):
            organization = f"[{_link_text(organization)}]({_line(provider['url'])})"
        about += " " + _("Provided by %(organization)s.") % {"organization": organization}
    parts += [about, "", render_section(agent)]
    return "\n".join(parts)
