package dev.kevo.agent.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A real HTTP server on loopback that speaks a model provider's protocol from a script: each path answers from
 * its queue of replies (recorded answers, error statuses, stalls), then from its fallback. langchain4j's own
 * clients talk to it over TCP, exactly as they would to OpenAI, Anthropic or Ollama.
 */
final class ModelServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One scripted reply: a status and body, sent after {@code stallMs}. */
    record Reply(int status, String body, long stallMs) {
        static Reply ok(String body) {
            return new Reply(200, body, 0);
        }

        static Reply status(int status, String body) {
            return new Reply(status, body, 0);
        }

        /** Answers only after {@code ms}: past the client's timeout it is never read. */
        static Reply stall(long ms, String body) {
            return new Reply(200, body, ms);
        }
    }

    /** What the server received. */
    record Request(String method, String path, Map<String, String> headers, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Every message's text content, joined: what the model was shown. */
        String prompt() {
            StringBuilder out = new StringBuilder();
            JsonNode root = json();
            JsonNode system = root.get("system");  // Anthropic's: a string or a list of text blocks
            if (system != null && system.isTextual()) {
                out.append(system.asText()).append('\n');
            } else if (system != null) {
                system.forEach(s -> out.append(s.path("text").asText()).append('\n'));
            }
            for (JsonNode m : root.path("messages")) {
                JsonNode content = m.get("content");
                if (content.isTextual()) {
                    out.append(content.asText()).append('\n');
                } else {
                    content.forEach(c -> out.append(c.path("text").asText()).append('\n'));
                }
            }
            return out.toString();
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Map<String, Deque<Reply>> queues = new HashMap<>();
    private final Map<String, Function<Request, Reply>> fallbacks = new HashMap<>();
    private final List<Request> received = new ArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();

    ModelServer() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    /** http://127.0.0.1:PORT followed by {@code prefix}, e.g. {@code /v1}. */
    String url(String prefix) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + prefix;
    }

    /** Replies for a path, in order; then the fallback. */
    synchronized ModelServer enqueue(String path, Reply... replies) {
        queues.computeIfAbsent(path, p -> new ArrayDeque<>()).addAll(List.of(replies));
        return this;
    }

    /** What a path answers once its queue is empty. */
    synchronized ModelServer fallback(String path, Function<Request, Reply> reply) {
        fallbacks.put(path, reply);
        return this;
    }

    synchronized List<Request> requests(String path) {
        return received.stream().filter(r -> r.path().equals(path)).toList();
    }

    /** The most requests that were being answered at the same moment. */
    int maxInFlight() {
        return maxInFlight.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        boolean counted = true;
        try (exchange) {
            String body;
            try (InputStream in = exchange.getRequestBody()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Map<String, String> headers = new HashMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), String.join(",", v)));
            Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), headers,
                    body);
            Reply reply;
            synchronized (this) {
                received.add(request);
                Deque<Reply> queue = queues.get(request.path());
                if (queue != null && !queue.isEmpty()) {
                    reply = queue.removeFirst();
                } else if (fallbacks.containsKey(request.path())) {
                    reply = fallbacks.get(request.path()).apply(request);
                } else {
                    reply = Reply.status(404, "{\"error\": {\"message\": \"no route " + request.path() + "\"}}");
                }
            }
            if (reply.stallMs() > 0) {
                try {
                    Thread.sleep(reply.stallMs());
                } catch (InterruptedException e) {
                    return;  // the server is closing
                }
            }
            byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
            // The client may send its next request as soon as the answer arrives, before this thread gets to its
            // finally: the request stops counting first, or a bounded client would look unbounded on a busy machine.
            inFlight.decrementAndGet();
            counted = false;
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(reply.status(), bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        } catch (IOException e) {
            // The client gave up (its timeout): nothing to answer.
        } finally {
            if (counted) {
                inFlight.decrementAndGet();
            }
        }
    }

    /** A recorded answer from src/test/resources/llm/. */
    static String recorded(String name) {
        try (InputStream in = ModelServer.class.getResourceAsStream("/llm/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no recorded answer " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A recorded OpenAI answer with its content replaced, e.g. to make one 2 MB long. */
    static String openAiWithContent(String content) {
        try {
            ObjectNode root =
                    (ObjectNode) JSON.readTree(recorded("openai-full-file.json"));
            ((ObjectNode) root.get("choices").get(0).get("message"))
                    .put("content", content);
            return JSON.writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
