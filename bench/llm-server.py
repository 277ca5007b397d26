#!/usr/bin/env python3
"""A scripted OpenAI-compatible model server for bench/llm-step.sh: no model, no network, standard library only.

GET  /v1/models            lists one model, "kevo-scripted"
POST /v1/chat/completions  answers with a recorded answer from --answers (a folder of .md files):
                           a repair request (its prompt says "repair round") gets repaired.md; other requests
                           get improve.md, broken.md, improve.md, broken.md, ... in arrival order
Every request body is saved as --requests/NNN.json, and one line per request goes to stdout.
"""
import argparse
import itertools
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "kevo-scripted"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--answers", required=True)
    parser.add_argument("--requests", required=True)
    args = parser.parse_args()
    os.makedirs(args.requests, exist_ok=True)
    answers = {name: open(os.path.join(args.answers, name + ".md")).read()
               for name in ("improve", "broken", "repaired")}
    rotation = itertools.cycle(["improve", "broken"])
    counter = itertools.count(1)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def send_json(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path.rstrip("/") == "/v1/models":
                self.send_json(200, {"object": "list", "data": [
                    {"id": MODEL, "object": "model", "created": 1750000000, "owned_by": "kevo"}]})
            else:
                self.send_json(404, {"error": {"message": "no route " + self.path}})

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path.rstrip("/") != "/v1/chat/completions":
                self.send_json(404, {"error": {"message": "no route " + self.path}})
                return
            request = json.loads(body)
            prompt = "\n".join(m.get("content") or "" for m in request.get("messages", [])
                               if isinstance(m.get("content"), str))
            with lock:
                n = next(counter)
                which = "repaired" if "repair round" in prompt else next(rotation)
            with open(os.path.join(args.requests, "%03d.json" % n), "wb") as f:
                f.write(body)
            content = answers[which]
            prompt_tokens = len(prompt) // 4
            completion_tokens = len(content) // 4
            print("%s request %d: %d prompt chars -> %s" % (time.strftime("%H:%M:%S"), n, len(prompt), which),
                  flush=True)
            self.send_json(200, {
                "id": "chatcmpl-kevo-%03d" % n, "object": "chat.completion", "created": int(time.time()),
                "model": MODEL,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens}})

        def log_message(self, fmt, *args):
            pass  # one line per request is printed above

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print("scripted model server on 127.0.0.1:%d" % args.port, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
