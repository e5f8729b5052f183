package dev.ratelimit.examples.todos;

import dev.ratelimit.RateLimit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Renders the todos as CSV (RFC 4180). A limit on a plain CDI bean method: it is spent once per call,
 * and a call over the limit throws {@code RateLimitExceededException}, which reaches the client of
 * {@code GET /todos/export} as a 429 describing {@code export}.
 */
@ApplicationScoped
public class ExportService {

    private final TodoRepository todos;

    @Inject
    public ExportService(TodoRepository todos) {
        this.todos = todos;
    }

    /** For the container's client proxy only. */
    protected ExportService() {
        this(null);
    }

    @RateLimit(permitLimit = 1, windowSeconds = 10, name = "export")
    public String export() {
        StringBuilder csv = new StringBuilder("id,title,done\r\n");
        for (Todo todo : todos.all()) {
            csv.append(todo.id()).append(',').append(field(todo.title())).append(',').append(todo.done()).append("\r\n");
        }
        return csv.toString();
    }

    private static String field(String value) {
        if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\r') < 0 && value.indexOf('\n') < 0) {
            return value;
        }
        return '"' + value.replace("\"", "\"\"") + '"';
    }
}
