package dev.ratelimit.examples.todos;

/** The body of {@code POST /todos}: {@code {"title":"..."}}. The title must not be blank. */
public record NewTodo(String title) {
}
