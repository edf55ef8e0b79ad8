/*
 * The agent page's console (a2a_app): talks to the agent's JSON-RPC endpoint from the
 * visitor's browser. SendStreamingMessage (server-sent events read from fetch) when the
 * card says streaming is available and the box is ticked, else SendMessage. A follow-up
 * continues the task that asked for input; otherwise messages stay in the same context.
 *
 * Everything the agent sends is untrusted: it is shown with textContent, never as HTML.
 * No build step, no dependency: plain ES2017 served as a static file.
 */
(function () {
  "use strict";

  // Copy buttons work on every agent page, console or not.
  document.querySelectorAll("button.a2a-copy[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(source.textContent).then(function () {
        button.setAttribute("aria-label", button.textContent + " ✓");
      });
    });
  });

  var configNode = document.getElementById("a2a-console-config");
  if (!configNode) return;
  var config = JSON.parse(configNode.textContent);
  var S = config.strings;
  var form = document.getElementById("a2a-console-form");
  var input = document.getElementById("a2a-console-input");
  var log = document.getElementById("a2a-console-log");
  var stateNode = document.getElementById("a2a-console-state");
  var sendButton = document.getElementById("a2a-console-send");
  var resetButton = document.getElementById("a2a-console-reset");
  var keyInput = document.getElementById("a2a-console-key");
  var streamBox = document.getElementById("a2a-console-stream");

  var TERMINAL = ["TASK_STATE_COMPLETED", "TASK_STATE_CANCELED", "TASK_STATE_FAILED",
    "TASK_STATE_REJECTED"];
  var INTERRUPTED = ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"];
  var POLL_MS = 1500;
  var POLL_LIMIT = 80;

  var conversation = { taskId: null, contextId: null, state: null };
  var seenMessages = new Set();
  var artifactNodes = new Map();
  var busy = false;
  // The send in progress: "New conversation" aborts it, and a late event of an aborted
  // send (a stream still open on a working task) is dropped, not shown in the new one.
  var active = null;

  function ConsoleError(message, code) {
    this.message = message;
    this.code = code;
  }

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return (b + 256).toString(16).slice(1);
    }).join("");
  }

  function setState(text, state) {
    stateNode.textContent = text;
    if (state) stateNode.setAttribute("data-state", state);
    else stateNode.removeAttribute("data-state");
  }

  function entry(kind, label) {
    var item = document.createElement("li");
    item.className = "a2a-entry a2a-entry--" + kind;
    var who = document.createElement("span");
    who.className = "a2a-who";
    who.textContent = label;
    item.appendChild(who);
    log.appendChild(item);
    log.scrollTop = log.scrollHeight;
    return item;
  }

  /* Parts as text; ``dataFolded``: data parts behind a "Data" disclosure (the data a
     question carries, such as {"missing": [...]}, is for agents more than for people). */
  function addParts(container, parts, dataFolded) {
    (parts || []).forEach(function (part) {
      var node;
      if (typeof part.text === "string") {
        node = document.createElement("p");
        node.className = "a2a-text";
        node.textContent = part.text;
      } else if (part.data !== undefined) {
        var pre = document.createElement("pre");
        pre.className = "a2a-data";
        pre.textContent = JSON.stringify(part.data, null, 2);
        node = pre;
        if (dataFolded) {
          node = document.createElement("details");
          node.className = "a2a-details";
          var summary = document.createElement("summary");
          summary.textContent = S.data;
          node.appendChild(summary);
          node.appendChild(pre);
        }
      } else if (typeof part.url === "string") {
        node = document.createElement("p");
        var link = document.createElement("a");
        link.textContent = part.filename || part.url;
        // Only web links: a javascript: URL from an agent must not become clickable.
        if (/^https?:\/\//i.test(part.url)) {
          link.href = part.url;
          link.rel = "noopener noreferrer nofollow";
        }
        node.appendChild(link);
      } else if (part.raw !== undefined) {
        node = document.createElement("p");
        node.className = "a2a-text";
        node.textContent = S.file + ": " + (part.filename || "") +
          (part.mediaType ? " (" + part.mediaType + ")" : "");
      }
      if (node) container.appendChild(node);
    });
    log.scrollTop = log.scrollHeight;
  }

  function showError(message) {
    addParts(entry("error", S.error), [{ text: message }]);
    setState(S.error);
  }

  function showMessage(message) {
    if (!message || seenMessages.has(message.messageId)) return;
    seenMessages.add(message.messageId);
    addParts(entry("agent", S.agent), message.parts, true);
  }

  function showStatus(taskId, contextId, status) {
    conversation.taskId = taskId || conversation.taskId;
    conversation.contextId = contextId || conversation.contextId;
    if (!status) return;
    conversation.state = status.state;
    showMessage(status.message);
    setState((S.states && S.states[status.state]) || status.state, status.state);
  }

  function showArtifact(artifact, append) {
    if (!artifact) return;
    var node = artifactNodes.get(artifact.artifactId);
    if (!node) {
      node = entry("artifact", S.artifact + (artifact.name ? ": " + artifact.name : ""));
      artifactNodes.set(artifact.artifactId, node);
    } else if (!append) {
      // The whole artifact again (a task snapshot, or a replacement): redraw it.
      while (node.childNodes.length > 1) node.removeChild(node.lastChild);
    }
    addParts(node, artifact.parts);
  }

  /* One SendMessageResponse or StreamResponse (v1.0 ProtoJSON). */
  function handle(result) {
    if (!result) return;
    if (result.message) {
      conversation.contextId = result.message.contextId || conversation.contextId;
      showMessage(result.message);
      setState(S.replied);
    } else if (result.task) {
      var task = result.task;
      showStatus(task.id, task.contextId, task.status);
      (task.artifacts || []).forEach(function (a) { showArtifact(a, false); });
    } else if (result.statusUpdate) {
      var update = result.statusUpdate;
      showStatus(update.taskId, update.contextId, update.status);
    } else if (result.artifactUpdate) {
      showArtifact(result.artifactUpdate.artifact, result.artifactUpdate.append);
    }
  }

  function headers(accept) {
    var out = { "Content-Type": "application/json", "A2A-Version": "1.0", "Accept": accept };
    if (config.csrfToken) out["X-CSRFToken"] = config.csrfToken;
    var key = keyInput && keyInput.value.trim();
    if (key && config.apiKeyHeader) out[config.apiKeyHeader] = key;
    return out;
  }

  function post(method, params, accept, run) {
    return fetch(config.endpoint, {
      method: "POST",
      credentials: "same-origin",
      headers: headers(accept),
      body: JSON.stringify({ jsonrpc: "2.0", id: newId(), method: method, params: params }),
      signal: run.controller ? run.controller.signal : undefined
    }).catch(function (error) {
      if (run !== active) throw error;  // aborted: nobody is listening
      throw new ConsoleError(S.network);
    });
  }

  async function readError(response) {
    var body = null;
    try { body = await response.json(); } catch (e) { /* not JSON */ }
    if (body && body.error) return new ConsoleError(body.error.message, body.error.code);
    return new ConsoleError(S.httpError.replace("%(status)s", response.status));
  }

  async function call(method, params, run) {
    var response = await post(method, params, "application/json", run);
    var body = null;
    try { body = await response.json(); } catch (e) { /* not JSON */ }
    if (body && body.error) throw new ConsoleError(body.error.message, body.error.code);
    if (!response.ok || !body) {
      throw new ConsoleError(S.httpError.replace("%(status)s", response.status));
    }
    return body.result;
  }

  /* Server-sent events from a fetch body: each "data:" payload is one JSON-RPC response. */
  async function stream(params, run) {
    var response = await post("SendStreamingMessage", params, "text/event-stream", run);
    var type = response.headers.get("Content-Type") || "";
    if (!response.ok || type.indexOf("text/event-stream") !== 0) throw await readError(response);
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done || run !== active) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      var events = buffer.split(/\r?\n\r?\n/);
      buffer = events.pop();
      events.forEach(function (event) {
        var data = event.split(/\r?\n/).filter(function (line) {
          return line.indexOf("data:") === 0;
        }).map(function (line) {
          return line.slice(5).replace(/^ /, "");
        }).join("\n");
        if (!data) return;  // a comment (keep-alive) or an event without data
        var payload = JSON.parse(data);
        if (payload.error) throw new ConsoleError(payload.error.message, payload.error.code);
        if (run === active) handle(payload.result);
      });
    }
  }

  /* A blocking send that came back while the task still runs: look again until it stops. */
  async function follow(taskId, run) {
    for (var i = 0; i < POLL_LIMIT; i++) {
      if (run !== active || conversation.taskId !== taskId) return;
      var state = conversation.state;
      if (state !== "TASK_STATE_WORKING" && state !== "TASK_STATE_SUBMITTED") return;
      await new Promise(function (resolve) { setTimeout(resolve, POLL_MS); });
      var task = await call("GetTask", { id: taskId }, run);
      if (run === active) handle({ task: task });
    }
  }

  async function send(text, run) {
    var message = { messageId: newId(), role: "ROLE_USER", parts: [{ text: text }] };
    // An answer continues the task that asked; anything else starts a task in the
    // same conversation (context).
    if (conversation.taskId && INTERRUPTED.indexOf(conversation.state) !== -1) {
      message.taskId = conversation.taskId;
    }
    if (conversation.contextId) message.contextId = conversation.contextId;
    addParts(entry("user", S.you), [{ text: text }]);
    var params = { message: message };
    if (config.streaming && streamBox && streamBox.checked) {
      try {
        await stream(params, run);
        return;
      } catch (error) {
        // -32004 UnsupportedOperation: this server cannot stream after all. Send again.
        if (!(error instanceof ConsoleError) || error.code !== -32004) throw error;
        config.streaming = false;
      }
    }
    var result = await call("SendMessage", params, run);
    if (run !== active) return;
    handle(result);
    if (conversation.taskId) await follow(conversation.taskId, run);
  }

  function setBusy(value) {
    busy = value;
    sendButton.disabled = value;
    form.setAttribute("aria-busy", value ? "true" : "false");
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (busy) return;
    var text = input.value.trim();
    if (!text) {
      setState(S.empty);
      input.focus();
      return;
    }
    var run = { controller: window.AbortController ? new AbortController() : null };
    active = run;
    setBusy(true);
    setState(S.waiting);
    input.value = "";
    try {
      await send(text, run);
    } catch (error) {
      if (run === active) showError(error && error.message ? error.message : String(error));
    } finally {
      if (run === active) {
        active = null;
        setBusy(false);
        input.focus();
      }
    }
  });

  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit ? form.requestSubmit() : sendButton.click();
    }
  });

  resetButton.addEventListener("click", function () {
    var run = active;
    active = null;
    if (run && run.controller) run.controller.abort();
    setBusy(false);
    conversation = { taskId: null, contextId: null, state: null };
    seenMessages.clear();
    artifactNodes.clear();
    while (log.firstChild) log.removeChild(log.firstChild);
    setState(S.newConversation);
    input.focus();
  });

  document.querySelectorAll("button.a2a-example").forEach(function (button) {
    button.addEventListener("click", function () {
      input.value = button.getAttribute("data-example");
      input.focus();
    });
  });
})();
