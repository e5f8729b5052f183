package dev.ratelimit.openapi.testapp;

public record Item(long id, String name) {
}
