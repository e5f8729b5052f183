package dev.ratelimit.examples.todos;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The in-memory store of the example, seeded with two todos so that {@code GET /todos/1} answers on a
 * fresh server.
 *
 * <p>Invariants, all guarded by {@code this}: {@code byId} holds every todo under its id, in creation
 * order; no two todos share a title; {@code nextId} is greater than every id handed out.
 */
@ApplicationScoped
public class TodoRepository {

    private final Map<Long, Todo> byId = new LinkedHashMap<>();
    private long nextId = 1;

    public TodoRepository() {
        add("Write the spec", true);
        add("Ship it", false);
    }

    /** Every todo, in creation order. */
    public synchronized List<Todo> all() {
        return new ArrayList<>(byId.values());
    }

    public synchronized Optional<Todo> find(long id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** Adds a todo, or returns empty when a todo with this title exists already. */
    public synchronized Optional<Todo> create(String title) {
        for (Todo todo : byId.values()) {
            if (todo.title().equals(title)) {
                return Optional.empty();
            }
        }
        return Optional.of(add(title, false));
    }

    /**
     * Adds todos with these titles, all or none: empty when one of the titles exists already or appears
     * twice.
     */
    public synchronized Optional<List<Todo>> createAll(List<String> titles) {
        java.util.Set<String> taken = new java.util.HashSet<>();
        for (Todo todo : byId.values()) {
            taken.add(todo.title());
        }
        for (String title : titles) {
            if (!taken.add(title)) {
                return Optional.empty();
            }
        }
        List<Todo> created = new ArrayList<>(titles.size());
        for (String title : titles) {
            created.add(add(title, false));
        }
        return Optional.of(created);
    }

    /** Removes the todo; false when there is none with this id. */
    public synchronized boolean delete(long id) {
        return byId.remove(id) != null;
    }

    private Todo add(String title, boolean done) {
        Todo todo = new Todo(nextId++, title, done);
        byId.put(todo.id(), todo);
        return todo;
    }
}
