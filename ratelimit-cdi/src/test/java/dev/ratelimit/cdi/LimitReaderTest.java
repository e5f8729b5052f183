package dev.ratelimit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.ResolvedLimits;
import java.lang.reflect.Method;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The reflection reader with the resolver: which limits cover a method, in which order, and which declarations fail
 * the deployment, as read from the annotations.
 */
class LimitReaderTest {

    private static final RateLimitSettings GLOBAL = RateLimitSettings.of(Map.of("ratelimit.global.permit-limit", "1000"));
    private static final RateLimitSettings NO_GLOBAL = RateLimitSettings.of(Map.of());

    // ---------------------------------------------------------------- fixtures

    @RateLimit(permitLimit = 100, windowSeconds = 60, name = "module")
    @RateLimit(permitLimit = 10_000, windowSeconds = 3600, name = "module-hourly")
    static class TodosApplication {
    }

    static class TodoResource {
        @RateLimit(permitLimit = 3, windowSeconds = 60)
        public void all() {
        }

        public void one(long id) {
        }

        @RateLimit(permitLimit = 5, windowSeconds = 1, name = "burst")
        @RateLimit(permitLimit = 500, windowSeconds = 3600, name = "hourly")
        public void create(String title, int priority) {
        }

        @RateLimit(permitLimit = 2, windowSeconds = 60, name = "delete", scope = RateLimitScope.PRINCIPAL)
        public void delete(long id) {
        }

        @RateLimit(permitLimit = 10, windowSeconds = 60, name = "reports", cost = 4,
                algorithm = RateLimitAlgorithm.STRICT_WINDOW)
        public void report() {
        }

        @RateLimit(permitLimit = 5, name = "exact", cost = 5)
        public void costOfTheWholeLimit() {
        }

        @RateLimit(permitLimit = 5, name = "free", cost = 0)
        public void zeroCost() {
        }

        @RateLimit(permitLimit = 5, name = "greedy", cost = 6)
        public void costAboveTheLimit() {
        }

        @RateLimit(permitLimit = 1, name = "application")
        public void clashesWithGlobal() {
        }

        @RateLimit(permitLimit = 1, name = "twice")
        @RateLimit(permitLimit = 2, name = "twice")
        public void sameNameTwice() {
        }

        @RateLimit(permitLimit = 0)
        public void zeroPermits() {
        }

        @RateLimit(windowSeconds = 0)
        public void zeroWindow() {
        }

        @RateLimit(name = " ")
        public void blankName() {
        }

        @RateLimit(name = "")
        public void emptyName() {
        }
    }

    @RateLimit(permitLimit = 50, windowSeconds = 10, name = "admin")
    @RateLimit(permitLimit = 900, windowSeconds = 3600, name = "admin-hourly", scope = RateLimitScope.PRINCIPAL)
    static class AdminResource {
        public void list() {
        }

        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "purge")
        public void purge() {
        }

        @RateLimit(permitLimit = 5, name = "admin")
        public void clashesWithClass() {
        }
    }

    @RateLimit(permitLimit = 0, name = "broken")
    static class BrokenClass {
        public void any() {
        }
    }

    @RateLimit(permitLimit = 3, name = "bulk", cost = 4)
    static class CostlyClass {
        public void any() {
        }
    }

    @RateLimit(permitLimit = 1, name = "application")
    static class ModuleClashingWithGlobal {
    }

    @RateLimit(windowSeconds = 0, name = "zero")
    static class BrokenModule {
    }

    // ---------------------------------------------------------------- ordering and coverage

    @Test
    void limitsAreOrderedGlobalClassMethodEachInDeclarationOrder() throws Exception {
        ResolvedLimits limits = LimitReader.forResourceMethod(GLOBAL, TodosApplication.class, AdminResource.class,
                method(AdminResource.class, "purge"));

        assertThat(limits.limits()).extracting(l -> l.policy().name(), LimitDeclaration::declaredOn).containsExactly(
                tuple("application", DeclaredOn.GLOBAL),
                tuple("admin", DeclaredOn.CLASS),
                tuple("admin-hourly", DeclaredOn.CLASS),
                tuple("purge", DeclaredOn.METHOD));
        assertThat(limits.where()).isEqualTo("AdminResource.purge()");
    }

    @Test
    void methodLimitsKeepTheirDeclarationOrderAndValues() throws Exception {
        ResolvedLimits limits = LimitReader.forResourceMethod(NO_GLOBAL, null, TodoResource.class,
                method(TodoResource.class, "create", String.class, int.class));

        assertThat(limits.limits()).extracting(LimitDeclaration::policy).containsExactly(
                new RateLimitPolicy("burst", 5, 1),
                new RateLimitPolicy("hourly", 500, 3600));
        assertThat(limits.limits()).extracting(LimitDeclaration::cost).containsExactly(1, 1);
    }

    @Test
    void annotationDefaultsAreAHundredPerMinuteNamedDefaultInTransportSlidingCostOne() throws Exception {
        LimitDeclaration limit = LimitReader.forBeanMethod(Defaults.class, method(Defaults.class, "any")).limits().get(0);

        assertThat(limit.policy()).isEqualTo(new RateLimitPolicy("default", 100, 60, RateLimitAlgorithm.SLIDING_WINDOW));
        assertThat(limit).extracting(LimitDeclaration::cost, LimitDeclaration::scope, LimitDeclaration::maxWaitMillis,
                LimitDeclaration::per).containsExactly(1, RateLimitScope.TRANSPORT, 0L, RateLimitPer.CALLER);
        // the defaults of the annotation are the model's: a reader that hands over only the members a declaration
        // gives (the Jandex and javax.lang.model readers) makes the same declaration
        assertThat(limit).isEqualTo(LimitDeclaration.builder(DeclaredOn.METHOD, "Defaults.any()").build());
    }

    @Test
    void algorithmAndCostAreReadFromTheAnnotation() throws Exception {
        ResolvedLimits limits = LimitReader.forResourceMethod(NO_GLOBAL, null, TodoResource.class,
                method(TodoResource.class, "report"));

        assertThat(limits.limits()).singleElement().satisfies(l -> {
            assertThat(l.policy()).isEqualTo(new RateLimitPolicy("reports", 10, 60, RateLimitAlgorithm.STRICT_WINDOW));
            assertThat(l.cost()).isEqualTo(4);
        });
        assertThat(limits.limits()).containsExactly(LimitDeclaration.builder(DeclaredOn.METHOD, "TodoResource.report()")
                .policy(new RateLimitPolicy("reports", 10, 60, RateLimitAlgorithm.STRICT_WINDOW)).cost(4).build());
    }

    @Test
    void costOfTheWholeLimitIsAccepted() throws Exception {
        ResolvedLimits limits = resolve(TodoResource.class, "costOfTheWholeLimit");

        assertThat(limits.limits()).extracting(LimitDeclaration::cost).containsExactly(5);
    }

    @Test
    void moduleLimitsCoverAMethodWithoutItsOwnAfterTheGlobalLimit() throws Exception {
        ResolvedLimits limits = LimitReader.forResourceMethod(GLOBAL, TodosApplication.class, TodoResource.class,
                method(TodoResource.class, "one", long.class));

        assertThat(limits.limits()).extracting(l -> l.policy().name(), LimitDeclaration::declaredOn).containsExactly(
                tuple("application", DeclaredOn.GLOBAL),
                tuple("module", DeclaredOn.MODULE),
                tuple("module-hourly", DeclaredOn.MODULE));
        assertThat(limits.limits().get(1).policy()).isEqualTo(new RateLimitPolicy("module", 100, 60));
    }

    @Test
    void moduleLimitsDoNotCoverAMethodWithItsOwnLimit() throws Exception {
        ResolvedLimits limits = LimitReader.forResourceMethod(GLOBAL, TodosApplication.class, TodoResource.class,
                method(TodoResource.class, "all"));

        assertThat(limits.limits()).extracting(l -> l.policy().name()).containsExactly("application", "default");
    }

    @Test
    void moduleLimitsDoNotCoverAMethodWhoseClassHasALimit() throws Exception {
        ResolvedLimits limits = LimitReader.forResourceMethod(GLOBAL, TodosApplication.class, AdminResource.class,
                method(AdminResource.class, "list"));

        assertThat(limits.limits()).extracting(l -> l.policy().name())
                .containsExactly("application", "admin", "admin-hourly");
    }

    @Test
    void methodWithoutAnyDeclaredLimitHasOnlyTheGlobalOne() throws Exception {
        ResolvedLimits limits = LimitReader.forResourceMethod(GLOBAL, null, TodoResource.class,
                method(TodoResource.class, "one", long.class));

        assertThat(limits.limits()).singleElement().satisfies(l -> {
            assertThat(l.policy()).isEqualTo(new RateLimitPolicy("application", 1000, 60));
            assertThat(l.declaredOn()).isEqualTo(DeclaredOn.GLOBAL);
            assertThat(l.place()).isEqualTo("ratelimit.global.*");
        });
        assertThat(LimitReader.forResourceMethod(NO_GLOBAL, null, TodoResource.class,
                method(TodoResource.class, "one", long.class)).isEmpty()).isTrue();
    }

    @Test
    void globalLimitTakesItsScopeAlgorithmAndNameFromConfiguration() throws Exception {
        RateLimitSettings settings = RateLimitSettings.of(Map.of(
                "ratelimit.global.permit-limit", "7",
                "ratelimit.global.window-seconds", "10",
                "ratelimit.global.name", "everything",
                "ratelimit.global.scope", "principal",
                "ratelimit.global.algorithm", "token-bucket"));

        ResolvedLimits limits = LimitReader.forResourceMethod(settings, null, TodoResource.class,
                method(TodoResource.class, "all"));

        assertThat(limits.limits().get(0)).isEqualTo(LimitDeclaration.global(
                new RateLimitPolicy("everything", 7, 10, RateLimitAlgorithm.TOKEN_BUCKET), RateLimitScope.PRINCIPAL));
        assertThat(limits.inScope(RateLimitScope.PRINCIPAL)).extracting(d -> d.policy().name())
                .containsExactly("everything");
        assertThat(limits.inScope(RateLimitScope.TRANSPORT)).extracting(d -> d.policy().name())
                .containsExactly("default");
    }

    @Test
    void limitsAreSplitByScopeKeepingTheirOrder() throws Exception {
        ResolvedLimits limits = LimitReader.forResourceMethod(GLOBAL, null, AdminResource.class,
                method(AdminResource.class, "purge"));

        assertThat(limits.inScope(RateLimitScope.TRANSPORT)).extracting(d -> d.policy().name())
                .containsExactly("application", "admin", "purge");
        assertThat(limits.inScope(RateLimitScope.PRINCIPAL)).extracting(d -> d.policy().name())
                .containsExactly("admin-hourly");
        assertThat(limits.limits()).extracting(LimitDeclaration::name)
                .containsExactly("application", "admin", "admin-hourly", "purge");
        assertThat(limits.limits()).extracting(LimitDeclaration::place)
                .containsExactly("ratelimit.global.*", "AdminResource", "AdminResource", "AdminResource.purge()");
    }

    @Test
    void beanMethodHasItsClassLimitsThenItsOwn() throws Exception {
        ResolvedLimits limits = LimitReader.forBeanMethod(AdminResource.class, method(AdminResource.class, "purge"));

        assertThat(limits.limits()).extracting(l -> l.policy().name(), LimitDeclaration::declaredOn).containsExactly(
                tuple("admin", DeclaredOn.CLASS),
                tuple("admin-hourly", DeclaredOn.CLASS),
                tuple("purge", DeclaredOn.METHOD));
        assertThat(limits.where()).isEqualTo("AdminResource.purge()");
    }

    @Test
    void annotatedElementsAreRecognisedWithOneOrRepeatedLimits() throws Exception {
        assertThat(LimitReader.isAnnotated(method(TodoResource.class, "all"))).isTrue();
        assertThat(LimitReader.isAnnotated(method(TodoResource.class, "create", String.class, int.class))).isTrue();
        assertThat(LimitReader.isAnnotated(AdminResource.class)).isTrue();
        assertThat(LimitReader.isAnnotated(TodosApplication.class)).isTrue();
        assertThat(LimitReader.isAnnotated(method(TodoResource.class, "one", long.class))).isFalse();
        assertThat(LimitReader.isAnnotated(TodoResource.class)).isFalse();
    }

    @Test
    void methodsAreDescribedWithTheirParameterTypes() throws Exception {
        assertThat(LimitReader.describe(TodoResource.class, method(TodoResource.class, "create", String.class,
                int.class))).isEqualTo("TodoResource.create(String, int)");
        assertThat(LimitReader.describe(TodoResource.class, method(TodoResource.class, "all")))
                .isEqualTo("TodoResource.all()");
    }

    @Test
    void userClassIsFoundUnderAContainerSubclass() {
        assertThat(LimitReader.userClass(AdminResource$$Proxy.class)).isEqualTo(AdminResource.class);
        assertThat(LimitReader.userClass(AdminResource.class)).isEqualTo(AdminResource.class);
    }

    // ---------------------------------------------------------------- invalid declarations

    @Test
    void permitLimitZeroFailsNamingTheMethodAndTheValue() {
        assertThatThrownBy(() -> resolve(TodoResource.class, "zeroPermits"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("@RateLimit on TodoResource.zeroPermits(): permitLimit must be >= 1, was 0");
    }

    @Test
    void windowSecondsZeroFailsNamingTheMethodAndTheValue() {
        assertThatThrownBy(() -> resolve(TodoResource.class, "zeroWindow"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("@RateLimit on TodoResource.zeroWindow(): windowSeconds must be between 1 and 31536000, was 0");
    }

    @Test
    void blankOrEmptyNameFailsNamingTheMethodAndTheValue() {
        assertThatThrownBy(() -> resolve(TodoResource.class, "blankName"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("@RateLimit on TodoResource.blankName(): name must be 1-64 characters from "
                        + "[A-Za-z0-9._-], was \" \"");
        assertThatThrownBy(() -> resolve(TodoResource.class, "emptyName"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageStartingWith("@RateLimit on TodoResource.emptyName(): name ")
                .hasMessageEndingWith("was \"\"");
    }

    @Test
    void costZeroFailsNamingTheMethodAndTheValue() {
        assertThatThrownBy(() -> resolve(TodoResource.class, "zeroCost"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("@RateLimit on TodoResource.zeroCost(): cost must be between 1 and permitLimit (5), was 0");
    }

    @Test
    void costAboveThePermitLimitFailsNamingTheMethodAndTheValue() {
        assertThatThrownBy(() -> resolve(TodoResource.class, "costAboveTheLimit"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("@RateLimit on TodoResource.costAboveTheLimit(): cost must be between 1 and permitLimit (5), "
                        + "was 6");
        assertThatThrownBy(() -> LimitReader.forBeanMethod(TodoResource.class,
                method(TodoResource.class, "costAboveTheLimit")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("TodoResource.costAboveTheLimit()")
                .hasMessageContaining("was 6");
    }

    @Test
    void invalidClassCostFailsNamingTheClassTheMethodItCoversAndTheValue() {
        assertThatThrownBy(() -> resolve(CostlyClass.class, "any"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("@RateLimit on CostlyClass (covering CostlyClass.any()): cost must be between 1 and "
                        + "permitLimit (3), was 4");
    }

    @Test
    void invalidClassLimitFailsNamingTheClassAndTheMethodItCovers() {
        assertThatThrownBy(() -> resolve(BrokenClass.class, "any"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("@RateLimit on BrokenClass (covering BrokenClass.any()): permitLimit must be >= 1, was 0");
    }

    @Test
    void invalidModuleLimitFailsNamingTheApplicationClassTheMethodAndTheValue() {
        assertThatThrownBy(() -> LimitReader.forResourceMethod(NO_GLOBAL, BrokenModule.class, TodoResource.class,
                method(TodoResource.class, "one", long.class)))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("@RateLimit on BrokenModule (covering TodoResource.one(long)): windowSeconds must be "
                        + "between 1 and 31536000, was 0");
    }

    @Test
    void nameUsedTwiceOnOneMethodFailsNamingTheMethodAndTheName() {
        assertThatThrownBy(() -> resolve(TodoResource.class, "sameNameTwice"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageStartingWith("@RateLimit on TodoResource.sameNameTwice(): name \"twice\" is used by more "
                        + "than one limit");
    }

    @Test
    void methodLimitNamedLikeTheGlobalLimitFailsNamingTheMethodAndTheName() {
        assertThatThrownBy(() -> LimitReader.forResourceMethod(GLOBAL, null, TodoResource.class,
                method(TodoResource.class, "clashesWithGlobal")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageStartingWith("@RateLimit on TodoResource.clashesWithGlobal(): name \"application\"");
    }

    @Test
    void methodLimitNamedLikeItsClassLimitFailsNamingTheMethodAndTheName() {
        assertThatThrownBy(() -> resolve(AdminResource.class, "clashesWithClass"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageStartingWith("@RateLimit on AdminResource.clashesWithClass(): name \"admin\"");
        assertThatThrownBy(() -> LimitReader.forBeanMethod(AdminResource.class,
                method(AdminResource.class, "clashesWithClass")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("AdminResource.clashesWithClass()")
                .hasMessageContaining("\"admin\"");
    }

    @Test
    void moduleLimitNamedLikeTheGlobalLimitFailsNamingTheMethodAndTheName() {
        assertThatThrownBy(() -> LimitReader.forResourceMethod(GLOBAL, ModuleClashingWithGlobal.class,
                TodoResource.class, method(TodoResource.class, "one", long.class)))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageStartingWith("@RateLimit on TodoResource.one(long): name \"application\"");
    }

    // ---------------------------------------------------------------- helpers

    static class Defaults {
        @RateLimit
        public void any() {
        }
    }

    /** Named the way Weld and ArC name the subclasses they generate. */
    static class AdminResource$$Proxy extends AdminResource {
    }

    private static ResolvedLimits resolve(Class<?> type, String methodName) throws NoSuchMethodException {
        return LimitReader.forResourceMethod(NO_GLOBAL, null, type, method(type, methodName));
    }

    private static Method method(Class<?> type, String name, Class<?>... parameters) throws NoSuchMethodException {
        return type.getDeclaredMethod(name, parameters);
    }
}
