package dev.ratelimit.openapi.internal.index;

import static dev.ratelimit.openapi.Limits.declared;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class IndexFormatTest {

    private static final LimitDeclaration BURST = declared(DeclaredOn.METHOD, "Res.create(Body, int[])", "burst", 5, 1);
    private static final LimitDeclaration HOURLY = declared(DeclaredOn.METHOD, "Res.create(Body, int[])",
            new RateLimitPolicy("hourly", 500, 3600), 1, RateLimitScope.PRINCIPAL);
    private static final LimitDeclaration REPORTS = LimitDeclaration.builder(DeclaredOn.METHOD, "Res.create(Body, int[])")
            .policy(new RateLimitPolicy("reports", 10, 60, RateLimitAlgorithm.TOKEN_BUCKET)).cost(4).maxWaitMillis(250)
            .per(RateLimitPer.APPLICATION).build();

    @Test
    void whatIsWrittenReadsBackTheSame() throws IOException {
        IndexedApplication app = new IndexedApplication("a.App", "/api",
                List.of(declared(DeclaredOn.MODULE, "App", "module", 100, 60)));
        IndexedMethod post = new IndexedMethod("a.Res", "POST", "/todos", "a.Res#create(a.Res$Body,int[])",
                "Res.create(Body, int[])", List.of(), List.of(BURST, HOURLY, REPORTS));
        IndexedMethod odd = new IndexedMethod("a.Res", "GET", "/odd\tpath\\x", "a.Res#odd()", "Res.odd()",
                List.of(declared(DeclaredOn.CLASS, "Res", "class", 7, 1)), List.of());
        StringWriter out = new StringWriter();
        IndexFormat.write(out, List.of(app), List.of(post, odd));

        assertThat(out.toString()).contains("ratelimit-index\t3\n",
                "name=burst;permitLimit=5;windowSeconds=1;scope=TRANSPORT;algorithm=SLIDING_WINDOW;cost=1;"
                        + "maxWaitMillis=0;per=CALLER;failuresOnly=false;failureStatuses=400-599;place=Res.create(Body%2c int[])",
                "name=reports;permitLimit=10;windowSeconds=60;scope=TRANSPORT;algorithm=TOKEN_BUCKET;cost=4;"
                        + "maxWaitMillis=250;per=APPLICATION;failuresOnly=false;failureStatuses=400-599;place=Res.create(Body%2c int[])");
        IndexFile read = IndexFormat.read(new StringReader(out.toString()), "test");
        assertThat(read.applications()).containsExactly(app);
        assertThat(read.methods()).containsExactlyInAnyOrder(post, odd);
        assertThat(read.methods().get(0).resourceClass()).isEqualTo("a.Res");
    }

    @Test
    void version1WrittenBeforeAlgorithmAndCostExistedReadsAsTheirDefaultsNamedByTheClassesAndMethods()
            throws IOException {
        IndexFile read = IndexFormat.read(new StringReader("""
                ratelimit-index\t1
                application\ta.App\t/api\tmodule;100;60;TRANSPORT
                method\ta.R\tPOST\t/todos\ta.R#create(a.R$Body,int[])\t\tburst;5;1;TRANSPORT,hourly;500;3600;PRINCIPAL
                """), "old.jar");
        assertThat(read.applications().get(0).moduleLimits())
                .containsExactly(declared(DeclaredOn.MODULE, "App", "module", 100, 60));
        assertThat(read.methods().get(0).where()).isEqualTo("R.create(Body, int[])");
        assertThat(read.methods().get(0).methodLimits()).containsExactly(
                declared(DeclaredOn.METHOD, "R.create(Body, int[])", "burst", 5, 1),
                declared(DeclaredOn.METHOD, "R.create(Body, int[])", new RateLimitPolicy("hourly", 500, 3600), 1,
                        RateLimitScope.PRINCIPAL));
    }

    @Test
    void version2ReadsTheAlgorithmAndTheCost() throws IOException {
        IndexFile read = IndexFormat.read(new StringReader(
                "ratelimit-index\t2\nmethod\ta.R\tGET\t/r\ta.R#r()\treports;10;60;TRANSPORT;TOKEN_BUCKET;4\t\n"), "v2");
        assertThat(read.methods().get(0).classLimits()).containsExactly(declared(DeclaredOn.CLASS, "R",
                new RateLimitPolicy("reports", 10, 60, RateLimitAlgorithm.TOKEN_BUCKET), 4, RateLimitScope.TRANSPORT));
    }

    @Test
    void recordKindsOfALaterVersionAreSkipped() throws IOException {
        IndexFile read = IndexFormat.read(new StringReader("ratelimit-index\t3\nsomething-new\tx\n"), "test");
        assertThat(read.methods()).isEmpty();
    }

    @Test
    void aValueThatIsNotItsMembersIsKeptForTheResolverToReport() throws IOException {
        IndexFile read = IndexFormat.read(new StringReader("ratelimit-index\t3\nmethod\ta.R\tGET\t/x\ta.R#x()\t\t"
                + "name=x;permitLimit=lots;algorithm=FASTEST;colour=blue;place=R.x()\tR.x()\n"), "f");
        assertThat(read.methods().get(0).methodLimits()).singleElement().satisfies(limit -> {
            assertThat(limit.permitLimit()).isEqualTo(100);
            assertThat(limit.unreadable()).containsExactly("permitLimit must be a whole number, was lots",
                    "algorithm FASTEST is not one this version of ratelimit knows [SLIDING_WINDOW, STRICT_WINDOW, "
                            + "TOKEN_BUCKET]",
                    "the member colour (blue) is not one this version of ratelimit reads " + LimitDeclaration.MEMBERS);
        });
    }

    @Test
    void aLaterFormatVersionOrAMalformedLineIsAnErrorNamingTheSourceAndLine() {
        assertThatThrownBy(() -> IndexFormat.read(new StringReader("ratelimit-index\t4\n"), "jar:x.jar!/idx"))
                .hasMessageContaining("jar:x.jar!/idx, line 1")
                .hasMessageContaining("format version 4 is newer than this ratelimit-openapi reads (1 to 3)")
                .hasMessageContaining("compiled with a later version of ratelimit-openapi");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader("ratelimit-index\tx\n"), "f"))
                .hasMessageContaining("format version \"x\" is not a number");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader("# c\nratelimit-index\t3\nmethod\ta\tGET\n"), "f"))
                .hasMessageContaining("f, line 3");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader(
                "ratelimit-index\t2\nmethod\ta.R\tGET\t/x\ta.R#x()\t\tx;1;1;TRANSPORT\n"), "f"))
                .hasMessageContaining("f, line 2").hasMessageContaining("name;permitLimit;windowSeconds;scope;algorithm;cost");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader(
                "ratelimit-index\t3\nmethod\ta.R\tGET\t/x\ta.R#x()\t\tname\tR.x()\n"), "f"))
                .hasMessageContaining("f, line 2").hasMessageContaining("member=value");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader(""), "f")).hasMessageContaining("not a ratelimit index");
    }

    @Test
    void methodKeysAreWrittenAsClassGetTypeNameWritesTypes() throws Exception {
        class Local {
            public void m(String[] a, int b, java.util.Map.Entry<String, String> c) {
            }
        }
        assertThat(IndexFormat.methodKey(IndexFormatTest.class,
                Local.class.getMethod("m", String[].class, int.class, java.util.Map.Entry.class)))
                .isEqualTo("dev.ratelimit.openapi.internal.index.IndexFormatTest#m(java.lang.String[],int,java.util.Map$Entry)");
    }
}
