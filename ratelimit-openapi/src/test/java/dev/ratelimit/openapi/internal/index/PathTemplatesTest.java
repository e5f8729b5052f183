package dev.ratelimit.openapi.internal.index;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathTemplatesTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "/todos|/todos",
            "todos/|/todos",
            "//todos//{id}/|/todos/{id}",
            "/todos/{id: [0-9]+}|/todos/{id}",
            "/todos/{ id }|/todos/{id}",
            "/todos/{id:[0-9]{1,9}}/x|/todos/{id}/x",
            "/files/{path: .+/.*}|/files/{path}",
            "/a/{x}-{y: [a-z]+}.json|/a/{x}-{y}.json",
            "''|/",
            "/|/",
            "/broken/{id|/broken/{id"
    })
    void normalizesAsGeneratorsWriteTemplates(String path, String normalized) {
        assertThat(PathTemplates.normalize(path)).isEqualTo(normalized);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "/|/todos/|{id}|/todos/{id}",
            "/api/|todos|''|/api/todos",
            "''|''|''|/"
    })
    void joinsApplicationClassAndMethodPaths(String app, String type, String method, String joined) {
        assertThat(PathTemplates.join(app, type, method)).isEqualTo(joined);
    }
}
