package dev.kevo.agent.llm;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.TimeoutException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * kevo's retry of model requests: timeouts, 429 and 5xx answers (and connections that broke) are sent again
 * after an exponentially growing, jittered pause, at most {@code retries} times; anything else (a refused key,
 * an unknown model, a malformed request) fails at once, because asking again cannot help.
 *
 * @param initial the pause before the first retry; each later one doubles, up to {@code max}
 */
record RetryPolicy(int retries, Duration initial, Duration max, Sleeper sleeper) {

    /** Pauses between attempts; tests substitute one that records instead of sleeping. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(Duration pause) throws InterruptedException;

        Sleeper REAL = pause -> Thread.sleep(pause);
    }

    static RetryPolicy standard(int retries) {
        return new RetryPolicy(retries, Duration.ofSeconds(2), Duration.ofSeconds(60), Sleeper.REAL);
    }

    /** A value and how many requests it took. */
    record Attempted<T>(T value, int attempts) {
    }

    /** Every attempt failed, or one failed in a way a retry cannot mend. */
    static final class Failed extends RuntimeException {
        private final int attempts;

        Failed(String message, int attempts, Throwable cause) {
            super(message, cause);
            this.attempts = attempts;
        }

        int attempts() {
            return attempts;
        }
    }

    <T> Attempted<T> run(Supplier<T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return new Attempted<>(call.get(), attempt);
            } catch (RuntimeException e) {
                if (!retriable(e)) {
                    throw new Failed(describe(e) + (attempt > 1 ? " (attempt " + attempt + ")" : ""), attempt, e);
                }
                if (attempt > retries) {
                    throw new Failed(attempt + (attempt == 1 ? " attempt" : " attempts") + " failed, the last: "
                            + describe(e), attempt, e);
                }
                try {
                    sleeper.sleep(pause(attempt));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new Failed("interrupted while waiting to retry after: " + describe(e), attempt, e);
                }
            }
        }
    }

    /** Equal jitter: half the exponential pause fixed, half random, so parallel requests spread out. */
    Duration pause(int attempt) {
        long full = Math.min(max.toMillis(), initial.toMillis() << Math.min(attempt - 1, 30));
        long half = full / 2;
        return Duration.ofMillis(half + (half > 0 ? ThreadLocalRandom.current().nextLong(half + 1) : 0));
    }

    static boolean retriable(Throwable e) {
        if (e instanceof RateLimitException || e instanceof InternalServerException || e instanceof TimeoutException) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpException h) {
                return h.statusCode() == 408 || h.statusCode() == 429 || h.statusCode() >= 500;
            }
            if (t instanceof IOException) {
                return true;  // reset or refused mid-campaign: a restarting server
            }
        }
        return false;
    }

    /** One line: the HTTP status and the start of the body, a timeout, or the root cause. */
    static String describe(Throwable e) {
        Throwable root = e;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpException h) {
                return "HTTP " + h.statusCode() + ": " + oneLine(h.getMessage(), 200);
            }
            if (t instanceof HttpTimeoutException) {
                return "no answer in time (" + oneLine(t.getMessage(), 100) + ")";
            }
            if (t instanceof ConnectException) {
                return "cannot connect (connection refused: is the server running?)";
            }
            root = t;
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + oneLine(message, 200));
    }

    static String oneLine(String text, int max) {
        if (text == null) {
            return "";
        }
        String line = text.replaceAll("\\s+", " ").strip();
        return line.length() <= max ? line : line.substring(0, max) + "...";
    }
}
