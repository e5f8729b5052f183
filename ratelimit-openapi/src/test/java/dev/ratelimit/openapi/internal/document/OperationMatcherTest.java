package dev.ratelimit.openapi.internal.document;

import static dev.ratelimit.openapi.Limits.declared;
import static dev.ratelimit.openapi.Limits.resolved;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.openapi.internal.document.OperationMatcher.Key;
import dev.ratelimit.openapi.internal.index.IndexedOperation;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OperationMatcherTest {

    private static final ResolvedLimits LIMITED = resolved("R.list()", declared(DeclaredOn.METHOD, "R.list()", "default",
            3, 60));
    private static final IndexedOperation LIST = new IndexedOperation("GET", "/api/todos", "/todos", "R#list()", LIMITED);
    private static final IndexedOperation ONE = new IndexedOperation("GET", "/api/todos/{id}", "/todos/{id}", "R#one(long)", resolved("R.one(long)"));
    private static final IndexedOperation CREATE = new IndexedOperation("POST", "/api/todos", "/todos", "R#create()", LIMITED);
    private static final List<IndexedOperation> INDEX = List.of(LIST, ONE, CREATE);

    @Test
    void pathsAsGeneratedMatchExactlyByMethodAndTemplate() {
        Map<Key, List<IndexedOperation>> matched = OperationMatcher.match(List.of(
                Key.of("get", "/api/todos"), Key.of("GET", "/api/todos/{id}"), Key.of("POST", "/api/todos"),
                Key.of("PUT", "/api/todos")), INDEX);
        assertThat(matched).containsOnlyKeys(Key.of("GET", "/api/todos"), Key.of("GET", "/api/todos/{id}"),
                Key.of("POST", "/api/todos"));
        assertThat(matched.get(Key.of("POST", "/api/todos"))).containsExactly(CREATE);
    }

    @Test
    void whereExactPathsMatchAPathThatOnlyEndsLikeOneIsNotTakenForIt() {
        Map<Key, List<IndexedOperation>> matched = OperationMatcher.match(List.of(
                Key.of("GET", "/api/todos"), Key.of("GET", "/legacy/api/todos")), INDEX);
        assertThat(matched).containsOnlyKeys(Key.of("GET", "/api/todos"));
    }

    @Test
    void aPrefixInFrontOfEveryPathIsRecognized() {
        Map<Key, List<IndexedOperation>> matched = OperationMatcher.match(List.of(
                Key.of("GET", "/ctx/api/todos"), Key.of("GET", "/ctx/api/todos/{id}"), Key.of("GET", "/other/api/todos/{id}")),
                INDEX);
        assertThat(matched).containsOnlyKeys(Key.of("GET", "/ctx/api/todos"), Key.of("GET", "/ctx/api/todos/{id}"));
    }

    @Test
    void pathsWithoutTheApplicationPathAreRecognized() {
        Map<Key, List<IndexedOperation>> matched = OperationMatcher.match(List.of(
                Key.of("GET", "/todos"), Key.of("GET", "/todos/{id: \\d+}"), Key.of("POST", "/todos")), INDEX);
        assertThat(matched).containsOnlyKeys(Key.of("GET", "/todos"), Key.of("GET", "/todos/{id}"), Key.of("POST", "/todos"));
    }
}
