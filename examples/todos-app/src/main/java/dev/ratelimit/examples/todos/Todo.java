package dev.ratelimit.examples.todos;

/** A todo as the API shows it: {@code {"id":1,"title":"Write the spec","done":true}}. */
public record Todo(long id, String title, boolean done) {
}
