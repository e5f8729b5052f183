package dev.ratelimit.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.openapi.TestCompiler.Processing;
import dev.ratelimit.openapi.TestCompiler.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.tools.Diagnostic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The processor, run by the JDK's compiler on small applications, found on the class path as a build finds it. */
class RateLimitIndexProcessorTest {

    private static final String APP = """
            package app;
            @jakarta.ws.rs.ApplicationPath("/v1/")
            @dev.ratelimit.RateLimit(permitLimit = 50, windowSeconds = 10, name = "module")
            public class App extends jakarta.ws.rs.core.Application {}
            """;

    private static final String ORDERS = """
            package app;
            import dev.ratelimit.RateLimit;
            import jakarta.ws.rs.*;
            @Path("orders")
            public class Orders {
                @GET @RateLimit(permitLimit = 3, windowSeconds = 60) public String all() { return ""; }
                @GET @Path("{id: [0-9]{1,9}}") public String one(@PathParam("id") long id) { return ""; }
                @Path("{id}/lines") public Lines lines(@PathParam("id") long id) { return new Lines(); }
                @Path("{id}/notes") public Class<Notes> notes() { return Notes.class; }
                public String notAResourceMethod() { return ""; }
                public static class Lines {
                    @GET public String all() { return ""; }
                    @PUT @Path("{n}") @RateLimit(permitLimit = 2, windowSeconds = 1, name = "edit")
                    public void put(@PathParam("n") int n, String[] body) {}
                }
            }
            """;

    private static final String NOTES = """
            package app;
            @dev.ratelimit.RateLimit(permitLimit = 7, windowSeconds = 70, name = "notes")
            public class Notes {
                @jakarta.ws.rs.GET public String all() { return ""; }
            }
            """;

    @Test
    void indexesRootResourcesSubResourcesAndTheApplication(@TempDir Path out) {
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE,
                Map.of("app.App", APP, "app.Orders", ORDERS, "app.Notes", NOTES));
        assertThat(result.success()).as(result.messages(Diagnostic.Kind.ERROR)).isTrue();
        assertThat(result.records()).containsExactly(
                "ratelimit-index\t3",
                "application\tapp.App\t/v1\t" + limit("App", "module", 50, 10),
                "method\tapp.Orders\tGET\t/orders\tapp.Orders#all()\t\t" + limit("Orders.all()", "default", 3, 60)
                        + "\tOrders.all()",
                "method\tapp.Orders\tGET\t/orders/{id}\tapp.Orders#one(long)\t\t\tOrders.one(long)",
                "method\tapp.Orders\tGET\t/orders/{id}/lines\tapp.Orders$Lines#all()\t\t\tLines.all()",
                "method\tapp.Orders\tPUT\t/orders/{id}/lines/{n}\tapp.Orders$Lines#put(int,java.lang.String[])\t\t"
                        + limit("Lines.put(int, String[])", "edit", 2, 1) + "\tLines.put(int, String[])",
                "method\tapp.Orders\tGET\t/orders/{id}/notes\tapp.Notes#all()\t" + limit("Notes", "notes", 7, 70)
                        + "\t\tNotes.all()");
    }

    @Test
    void followsJakartaRestAnnotationInheritanceFromSuperclassesAndInterfaces(@TempDir Path out) {
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE, Map.of(
                "app.Api", """
                        package app;
                        import jakarta.ws.rs.*;
                        @Path("/things")
                        public interface Api {
                            @GET String list();
                            @DELETE @Path("{id}") void remove(@PathParam("id") String id);
                        }
                        """,
                "app.Base", """
                        package app;
                        public abstract class Base implements Api {
                            @jakarta.ws.rs.POST public void create(String body) {}
                        }
                        """,
                "app.Things", """
                        package app;
                        import dev.ratelimit.RateLimit;
                        public class Things extends Base {
                            @Override @RateLimit(permitLimit = 9, windowSeconds = 9, name = "list") public String list() { return ""; }
                            @Override public void remove(String id) {}
                        }
                        """));
        assertThat(result.success()).as(result.messages(Diagnostic.Kind.ERROR)).isTrue();
        assertThat(result.records()).containsExactly(
                "ratelimit-index\t3",
                "method\tapp.Things\tGET\t/things\tapp.Things#list()\t\t" + limit("Things.list()", "list", 9, 9)
                        + "\tThings.list()",
                "method\tapp.Things\tPOST\t/things\tapp.Things#create(java.lang.String)\t\t\tThings.create(String)",
                "method\tapp.Things\tDELETE\t/things/{id}\tapp.Things#remove(java.lang.String)\t\t\tThings.remove(String)");
    }

    @Test
    void recordsTheAlgorithmAndTheCostOfEachLimit(@TempDir Path out) {
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE, Map.of("app.Reports", """
                package app;
                import dev.ratelimit.RateLimit;
                import dev.ratelimit.core.RateLimitScope;
                import dev.ratelimit.core.RateLimitAlgorithm;
                import jakarta.ws.rs.*;
                @Path("reports")
                @RateLimit(permitLimit = 20, windowSeconds = 60, name = "api", algorithm = RateLimitAlgorithm.TOKEN_BUCKET)
                public class Reports {
                    @GET @RateLimit(permitLimit = 10, windowSeconds = 60, name = "reports", cost = 4,
                            algorithm = RateLimitAlgorithm.STRICT_WINDOW, scope = RateLimitScope.PRINCIPAL)
                    public String report() { return ""; }
                }
                """));
        assertThat(result.success()).as(result.messages(Diagnostic.Kind.ERROR)).isTrue();
        assertThat(result.records()).containsExactly(
                "ratelimit-index\t3",
                "method\tapp.Reports\tGET\t/reports\tapp.Reports#report()\t"
                        + limit("Reports", "api", 20, 60, "TRANSPORT", "TOKEN_BUCKET", 1) + "\t"
                        + limit("Reports.report()", "reports", 10, 60, "PRINCIPAL", "STRICT_WINDOW", 4)
                        + "\tReports.report()");
    }

    @Test
    void aResourceMethodThatWouldWaitIsACompileErrorAsTheRuntimeWouldFailTheDeployment(@TempDir Path out) {
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE, Map.of("app.Waits", """
                package app;
                import dev.ratelimit.RateLimit;
                import jakarta.ws.rs.*;
                @Path("waits")
                public class Waits {
                    @GET @RateLimit(name = "waits", permitLimit = 3, windowSeconds = 60, maxWaitMillis = 500)
                    public String get() { return ""; }
                }
                """));
        assertThat(result.success()).isFalse();
        assertThat(result.messages(Diagnostic.Kind.ERROR)).contains(
                "@RateLimit on Waits.get(): the limit \"waits\" may wait 500 ms (maxWaitMillis), but a resource method "
                        + "refuses at once");
    }

    @Test
    void keysAreIndexedAndWhatIsWrongWithThemOrWithALimitPerArgumentIsACompileError(@TempDir Path out) {
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE, Map.of("app.Login", """
                package app;
                import dev.ratelimit.RateLimit;
                import dev.ratelimit.RateLimitKey;
                import dev.ratelimit.core.RateLimitPer;
                import jakarta.ws.rs.*;
                @Path("login")
                public class Login {
                    @POST @RateLimit(name = "account", per = RateLimitPer.ARGUMENT, failuresOnly = true)
                    public String login(@FormParam("u") @RateLimitKey String user, @FormParam("p") String password) {
                        return "";
                    }
                    @POST @Path("nokey") @RateLimit(name = "nokey", per = RateLimitPer.ARGUMENT)
                    public String noKey(@FormParam("u") String user) { return ""; }
                    @POST @Path("twokeys") @RateLimit(name = "twokeys", per = RateLimitPer.ARGUMENT)
                    public String twoKeys(@FormParam("a") @RateLimitKey String a, @FormParam("b") @RateLimitKey long b) {
                        return "";
                    }
                }
                """, "app.Sms", """
                package app;
                import dev.ratelimit.RateLimit;
                import dev.ratelimit.RateLimitKey;
                import dev.ratelimit.core.RateLimitPer;
                public class Sms {
                    public String send(@RateLimitKey Object phone) { return ""; }
                    @RateLimit(name = "codes", failuresOnly = true, maxWaitMillis = 200)
                    public String verify(@RateLimitKey String phone) { return ""; }
                }
                """));
        assertThat(result.success()).isFalse();
        assertThat(result.messages(Diagnostic.Kind.ERROR)).contains(
                "@RateLimit on Login.noKey(String): the limit \"nokey\" counts per ARGUMENT (per), but no parameter of "
                        + "the method carries @RateLimitKey",
                "@RateLimitKey on Login.twoKeys(String, long): 2 parameters carry it (0 (String), 1 (long))",
                "@RateLimitKey on Sms.send(Object): the parameter 0 is a Object, but a key must be a String",
                "@RateLimitKey on Sms.send(Object): the parameter 0 (Object) is a key, but no per = ARGUMENT limit covers",
                "@RateLimit on Sms.verify(String): the limit \"codes\" counts only failures (failuresOnly) and may wait "
                        + "200 ms",
                "@RateLimitKey on Sms.verify(String): the parameter 0 (String) is a key, but no per = ARGUMENT limit");
        assertThat(result.messages(Diagnostic.Kind.ERROR)).doesNotContain("Login.login(");
    }

    @Test
    void theKeyOfAMethodIsWrittenInItsRecordOfTheIndex(@TempDir Path out) {
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE, Map.of("app.Login", """
                package app;
                import dev.ratelimit.RateLimit;
                import dev.ratelimit.RateLimitKey;
                import dev.ratelimit.core.RateLimitPer;
                import jakarta.ws.rs.*;
                @Path("login")
                public class Login {
                    @POST @RateLimit(name = "account", per = RateLimitPer.ARGUMENT, failuresOnly = true)
                    public String login(@FormParam("u") @RateLimitKey(exact = true) String user) { return ""; }
                }
                """));
        assertThat(result.success()).as(result.messages(Diagnostic.Kind.ERROR)).isTrue();
        assertThat(result.records()).anySatisfy(record -> assertThat(record)
                .startsWith("method\tapp.Login\tPOST\t/login\tapp.Login#login(java.lang.String)\t\t")
                .contains("per=ARGUMENT;failuresOnly=true;failureStatuses=400-599")
                .endsWith("\tLogin.login(String)\t0:java.lang.String:other:exact"));
    }

    @Test
    void aCostAboveThePermitLimitIsACompileErrorAsTheRuntimeWouldFailTheDeployment(@TempDir Path out) {
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE, Map.of("app.Costly", """
                package app;
                import dev.ratelimit.RateLimit;
                import jakarta.ws.rs.*;
                @Path("costly")
                public class Costly {
                    @GET @RateLimit(permitLimit = 3, windowSeconds = 60, cost = 4) public String get() { return ""; }
                    @POST @RateLimit(permitLimit = 3, windowSeconds = 60, cost = 0) public void post(String body) {}
                }
                """));
        assertThat(result.success()).isFalse();
        assertThat(result.messages(Diagnostic.Kind.ERROR)).contains(
                "@RateLimit on Costly.get(): cost must be between 1 and permitLimit (3), was 4",
                "@RateLimit on Costly.post(String): cost must be between 1 and permitLimit (3), was 0");
    }

    @Test
    void anIndexOfFormatVersion1FromAnEarlierBuildIsReadAndRewrittenInTheCurrentVersion(@TempDir Path out) throws Exception {
        Path index = out.resolve("META-INF/ratelimit/resource-methods.idx");
        Files.createDirectories(index.getParent());
        Files.writeString(index, "ratelimit-index\t1\napplication\tapp.App\t/v1\tmodule;50;10;TRANSPORT\n");
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE, Map.of("app.App", APP));
        assertThat(result.success()).as(result.messages(Diagnostic.Kind.ERROR)).isTrue();
        assertThat(result.records()).containsExactly("ratelimit-index\t3",
                "application\tapp.App\t/v1\t" + limit("App", "module", 50, 10));
    }

    @Test
    void aLimitTheRuntimeWouldRejectIsACompileErrorNamingTheMethodAndTheValue(@TempDir Path out) {
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE, Map.of("app.Bad", """
                package app;
                import dev.ratelimit.RateLimit;
                import jakarta.ws.rs.*;
                @Path("bad")
                public class Bad {
                    @GET @RateLimit(permitLimit = 0, windowSeconds = 60) public String zero() { return ""; }
                    @POST @RateLimit(permitLimit = 1, windowSeconds = 1, name = "x") @RateLimit(permitLimit = 2, windowSeconds = 2, name = "x")
                    public void twice(String body) {}
                }
                """));
        assertThat(result.success()).isFalse();
        assertThat(result.messages(Diagnostic.Kind.ERROR)).contains(
                "@RateLimit on Bad.zero(): permitLimit must be >= 1, was 0",
                "@RateLimit on Bad.twice(String): name \"x\" is used by more than one limit covering the method");
    }

    @Test
    void anIncrementalCompilationIndexesTheClassesItDidNotCompileFromTheirClassFiles(@TempDir Path out) {
        Result full = TestCompiler.compile(out, Processing.DOCUMENTED_LINE,
                Map.of("app.App", APP, "app.Orders", ORDERS, "app.Notes", NOTES));
        assertThat(full.success()).isTrue();
        Result partial = TestCompiler.compile(out, Processing.DOCUMENTED_LINE, List.of(out), Map.of("app.Notes", """
                package app;
                @dev.ratelimit.RateLimit(permitLimit = 8, windowSeconds = 80, name = "notes")
                @jakarta.ws.rs.Path("notes")
                public class Notes {
                    @jakarta.ws.rs.GET public String all() { return ""; }
                }
                """));
        assertThat(partial.success()).as(partial.messages(Diagnostic.Kind.ERROR)).isTrue();
        assertThat(partial.records()).contains(
                "application\tapp.App\t/v1\t" + limit("App", "module", 50, 10),
                "method\tapp.Orders\tGET\t/orders\tapp.Orders#all()\t\t" + limit("Orders.all()", "default", 3, 60)
                        + "\tOrders.all()",
                // Orders was not compiled again: its locator is followed from its class file to the new Notes
                "method\tapp.Orders\tGET\t/orders/{id}/notes\tapp.Notes#all()\t" + limit("Notes", "notes", 8, 80)
                        + "\t\tNotes.all()",
                "method\tapp.Notes\tGET\t/notes\tapp.Notes#all()\t" + limit("Notes", "notes", 8, 80) + "\t\tNotes.all()");
    }

    @Test
    void theSameSourcesGiveTheSameBytes(@TempDir Path out) throws Exception {
        Map<String, String> sources = Map.of("app.App", APP, "app.Orders", ORDERS, "app.Notes", NOTES);
        String first = TestCompiler.compile(out.resolve("a"), Processing.DOCUMENTED_LINE, sources).index().orElseThrow();
        String second = TestCompiler.compile(out.resolve("b"), Processing.DOCUMENTED_LINE, sources).index().orElseThrow();
        assertThat(second).isEqualTo(first);
    }

    @Test
    void aCompilationWithoutJakartaRestWritesNoIndex(@TempDir Path out) {
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE,
                Map.of("app.Plain", "package app; public class Plain {}"));
        assertThat(result.success()).isTrue();
        assertThat(result.index()).isEmpty();
    }

    @Test
    void withoutTheDocumentedLineOnlyJdksBefore23RunTheProcessor(@TempDir Path out) {
        Result result = TestCompiler.compile(out, Processing.JDK_DEFAULT, Map.of("app.App", APP, "app.Orders", ORDERS,
                "app.Notes", NOTES));
        assertThat(result.success()).isTrue();
        if (Runtime.version().feature() >= 23) {
            assertThat(result.index()).as("JDK 23+ runs no processor from the class path by default").isEmpty();
        } else {
            assertThat(result.index()).isPresent();
        }
        assertThat(TestCompiler.compile(out.resolve("off"), Processing.OFF, Map.of("app.App", APP)).index()).isEmpty();
    }

    @Test
    void theIndexOfThisBuildsTestApplicationWasWrittenUnderTheDocumentedConfiguration() throws Exception {
        // the test sources compile with <proc>full</proc> (see the pom), on whatever JDK runs the build
        Path index = Path.of(RateLimitIndexProcessorTest.class.getResource("/META-INF/ratelimit/resource-methods.idx").toURI());
        assertThat(Files.readString(index)).contains("application\tdev.ratelimit.openapi.testapp.ShopApplication\t/api");
    }

    /** A limit as the index serialises it: every member, then its place (its commas escaped). */
    private static String limit(String place, String name, int permitLimit, int windowSeconds) {
        return limit(place, name, permitLimit, windowSeconds, "TRANSPORT", "SLIDING_WINDOW", 1);
    }

    private static String limit(String place, String name, int permitLimit, int windowSeconds, String scope,
                                String algorithm, int cost) {
        return "name=" + name + ";permitLimit=" + permitLimit + ";windowSeconds=" + windowSeconds + ";scope=" + scope
                + ";algorithm=" + algorithm + ";cost=" + cost + ";maxWaitMillis=0;per=CALLER;failuresOnly=false;"
                + "failureStatuses=400-599;place="
                + place.replace(",", "%2c");
    }
}
