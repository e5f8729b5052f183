package dev.ratelimit.tck;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import dev.ratelimit.tck.support.ServerUnderTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cost (docs/declaring-limits.md, "Cost") on the example: {@code GET /todos/report} costs 4 of the 10 a minute of
 * {@code reports}; {@code POST /todos/import} spends one permit of {@code items} (50 a minute, declared by
 * configuration alone) per todo through the programmatic API, all or nothing with the request's other limits.
 */
class CostTest extends TckTestBase {

    static final String REPORT = "/todos/report";
    static final String IMPORT = "/todos/import";
    static final String REPORTS = "reports";
    static final String ITEMS = "items";

    @Test
    void aReportCostsFourPermitsSoTheThirdInAMinuteIsRefused() {
        Caller caller = server.withFreshKey();

        Reply first = caller.get(REPORT).assertStatus(200);
        Reply second = caller.get(REPORT).assertStatus(200);
        Reply third = caller.get(REPORT).assertRefusedBy(REPORTS);

        assertThat(first.body()).contains("todos");
        assertThat(first.header("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
        assertThat(first.remaining(REPORTS)).as("%s", first).isEqualTo(6);
        assertThat(second.remaining(REPORTS)).as("%s", second).isEqualTo(2);
        assertThat(second.policy(REPORTS).quota()).isEqualTo(10);
        assertThat(third.remaining()).isZero();
        assertThat(third.retryAfter()).isBetween(1L, 60L);
    }

    @Test
    void anImportCreatesEveryTodoAndSpendsOneItemPermitPerTodo() {
        Caller caller = server.withFreshKey();
        List<String> titles = titles(3);

        Reply imported = caller.postJson(IMPORT, json(titles)).assertStatus(201);

        JsonNode created = imported.json();
        assertThat(created.isArray()).isTrue();
        List<String> createdTitles = new ArrayList<>();
        created.forEach(todo -> createdTitles.add(todo.path("title").asText()));
        assertThat(createdTitles).containsExactlyElementsOf(titles);
        assertThat(imported.remaining(ITEMS)).as("items after 3: %s", imported).isEqualTo(47);
        assertThat(imported.policy(ITEMS).quota()).isEqualTo(50);
        assertThat(imported.remaining(MODULE)).isEqualTo(99);
        for (JsonNode todo : created) {
            caller.get(TODOS + "/" + todo.path("id").asText()).assertStatus(200);
        }
    }

    @Test
    void anImportOverTheItemsLeftIsRefusedImportsNothingAndSpendsNothing() {
        Caller caller = server.withFreshKey();
        caller.postJson(IMPORT, json(titles(30))).assertStatus(201);
        List<String> tooMany = titles(21);

        Reply refused = caller.postJson(IMPORT, json(tooMany)).assertRefusedBy(ITEMS);

        assertThat(refused.remaining()).isZero();
        assertThat(refused.retryAfter()).isBetween(1L, 60L);
        List<String> existing = new ArrayList<>();
        server.withFreshKey().get(TODOS).assertStatus(200).json().forEach(t -> existing.add(t.path("title").asText()));
        assertThat(existing).as("nothing of the refused import was created").doesNotContainAnyElementsOf(tooMany);
        Reply next = caller.postJson(IMPORT, json(titles(20))).assertStatus(201);
        assertThat(next.remaining(ITEMS)).as("the refusal spent no item: %s", next).isZero();
        assertThat(next.remaining(MODULE)).as("nor a module permit: %s", next).isEqualTo(98);
    }

    @Test
    void anEmptyImportOrABodyThatDoesNotBindIsABadRequestThatSpendsNoItem() {
        Caller caller = server.withFreshKey();

        Reply empty = caller.postJson(IMPORT, "[]").assertStatus(400);
        caller.postJson(IMPORT, "{\"title\": \"not an array\"}").assertStatus(400);
        caller.postJson(IMPORT, "[{\"title\": ").assertStatus(400);
        caller.postJson(IMPORT, "[{\"title\": \"  \"}]").assertStatus(400);

        assertThat(empty.findPolicy(ITEMS)).as("no item decided: %s", empty).isEmpty();
        Reply imported = caller.postJson(IMPORT, json(titles(1))).assertStatus(201);
        assertThat(imported.remaining(ITEMS)).isEqualTo(49);
    }

    @Test
    void anImportOfATitleThatExistsIsAConflictAndImportsNothing() {
        Caller caller = server.withFreshKey();
        String taken = uniqueTitle();
        caller.createTodo(taken).assertStatus(201);
        String fresh = uniqueTitle();

        caller.postJson(IMPORT, json(List.of(fresh, taken))).assertStatus(409);

        List<String> existing = new ArrayList<>();
        server.withFreshKey().get(TODOS).assertStatus(200).json().forEach(t -> existing.add(t.path("title").asText()));
        assertThat(existing).doesNotContain(fresh);
    }

    private static List<String> titles(int count) {
        List<String> titles = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            titles.add(ServerUnderTest.freshName("imported"));
        }
        return titles;
    }

    private static String json(List<String> titles) {
        StringBuilder json = new StringBuilder("[");
        for (String title : titles) {
            if (json.length() > 1) {
                json.append(',');
            }
            json.append("{\"title\":\"").append(title).append("\"}");
        }
        return json.append(']').toString();
    }
}
