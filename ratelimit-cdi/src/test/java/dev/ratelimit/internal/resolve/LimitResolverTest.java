package dev.ratelimit.internal.resolve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

class LimitResolverTest {

    private static final RateLimitPolicy GLOBAL = new RateLimitPolicy("application", 1000, 60, RateLimitScope.TRANSPORT);

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

    @RateLimit(permitLimit = 1, name = "application")
    static class ModuleClashingWithGlobal {
    }

    @RateLimit(windowSeconds = 0, name = "zero")
    static class BrokenModule {
    }

    // ---------------------------------------------------------------- ordering and coverage

    @Test
    void limitsAreOrderedGlobalClassMethodEachInDeclarationOrder() throws Exception {
        ResolvedLimits limits = LimitResolver.forResourceMethod(GLOBAL, TodosApplication.class, AdminResource.class,
                method(AdminResource.class, "purge"));

        assertThat(limits.limits()).extracting(l -> l.policy().name(), ResolvedLimit::level).containsExactly(
                tuple("application", Level.GLOBAL),
                tuple("admin", Level.CLASS),
                tuple("admin-hourly", Level.CLASS),
                tuple("purge", Level.METHOD));
        assertThat(limits.where()).isEqualTo("AdminResource.purge()");
    }

    @Test
    void methodLimitsKeepTheirDeclarationOrder() throws Exception {
        ResolvedLimits limits = LimitResolver.forResourceMethod(null, null, TodoResource.class,
                method(TodoResource.class, "create", String.class, int.class));

        assertThat(limits.policies()).containsExactly(
                new RateLimitPolicy("burst", 5, 1, RateLimitScope.TRANSPORT),
                new RateLimitPolicy("hourly", 500, 3600, RateLimitScope.TRANSPORT));
    }

    @Test
    void moduleLimitsCoverAMethodWithoutItsOwnAfterTheGlobalLimit() throws Exception {
        ResolvedLimits limits = LimitResolver.forResourceMethod(GLOBAL, TodosApplication.class, TodoResource.class,
                method(TodoResource.class, "one", long.class));

        assertThat(limits.limits()).extracting(l -> l.policy().name(), ResolvedLimit::level).containsExactly(
                tuple("application", Level.GLOBAL),
                tuple("module", Level.MODULE),
                tuple("module-hourly", Level.MODULE));
        assertThat(limits.hasDeclaredLimits()).isTrue();
    }

    @Test
    void moduleLimitsDoNotCoverAMethodWithItsOwnLimit() throws Exception {
        ResolvedLimits limits = LimitResolver.forResourceMethod(GLOBAL, TodosApplication.class, TodoResource.class,
                method(TodoResource.class, "all"));

        assertThat(limits.policies()).extracting(RateLimitPolicy::name).containsExactly("application", "default");
    }

    @Test
    void moduleLimitsDoNotCoverAMethodWhoseClassHasALimit() throws Exception {
        ResolvedLimits limits = LimitResolver.forResourceMethod(GLOBAL, TodosApplication.class, AdminResource.class,
                method(AdminResource.class, "list"));

        assertThat(limits.policies()).extracting(RateLimitPolicy::name)
                .containsExactly("application", "admin", "admin-hourly");
    }

    @Test
    void methodWithoutAnyDeclaredLimitHasOnlyTheGlobalOne() throws Exception {
        ResolvedLimits limits = LimitResolver.forResourceMethod(GLOBAL, null, TodoResource.class,
                method(TodoResource.class, "one", long.class));

        assertThat(limits.policies()).containsExactly(GLOBAL);
        assertThat(limits.hasDeclaredLimits()).isFalse();
        assertThat(LimitResolver.forResourceMethod(null, null, TodoResource.class,
                method(TodoResource.class, "one", long.class)).isEmpty()).isTrue();
    }

    @Test
    void policiesAreSplitByScopeKeepingTheirOrder() throws Exception {
        ResolvedLimits limits = LimitResolver.forResourceMethod(GLOBAL, null, AdminResource.class,
                method(AdminResource.class, "purge"));

        assertThat(limits.policies(RateLimitScope.TRANSPORT)).extracting(RateLimitPolicy::name)
                .containsExactly("application", "admin", "purge");
        assertThat(limits.policies(RateLimitScope.PRINCIPAL)).extracting(RateLimitPolicy::name)
                .containsExactly("admin-hourly");
    }

    @Test
    void beanMethodHasItsClassLimitsThenItsOwn() throws Exception {
        ResolvedLimits limits = LimitResolver.forBeanMethod(AdminResource.class, method(AdminResource.class, "purge"));

        assertThat(limits.limits()).extracting(l -> l.policy().name(), ResolvedLimit::level).containsExactly(
                tuple("admin", Level.CLASS),
                tuple("admin-hourly", Level.CLASS),
                tuple("purge", Level.METHOD));
    }

    @Test
    void moduleLimitsAreReadFromTheApplicationClass() {
        assertThat(LimitResolver.declaredOn(TodosApplication.class)).containsExactly(
                new RateLimitPolicy("module", 100, 60, RateLimitScope.TRANSPORT),
                new RateLimitPolicy("module-hourly", 10_000, 3600, RateLimitScope.TRANSPORT));
        assertThat(LimitResolver.declaredOn(TodoResource.class)).isEmpty();
    }

    @Test
    void annotatedElementsAreRecognisedWithOneOrRepeatedLimits() throws Exception {
        assertThat(LimitResolver.isAnnotated(method(TodoResource.class, "all"))).isTrue();
        assertThat(LimitResolver.isAnnotated(method(TodoResource.class, "create", String.class, int.class))).isTrue();
        assertThat(LimitResolver.isAnnotated(AdminResource.class)).isTrue();
        assertThat(LimitResolver.isAnnotated(method(TodoResource.class, "one", long.class))).isFalse();
        assertThat(LimitResolver.isAnnotated(TodoResource.class)).isFalse();
    }

    @Test
    void methodsAreDescribedWithTheirParameterTypes() throws Exception {
        assertThat(LimitResolver.describe(TodoResource.class, method(TodoResource.class, "create", String.class,
                int.class))).isEqualTo("TodoResource.create(String, int)");
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
    void invalidClassLimitFailsNamingTheClassAndTheMethodItCovers() {
        assertThatThrownBy(() -> resolve(BrokenClass.class, "any"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("@RateLimit on BrokenClass (covering BrokenClass.any()): permitLimit must be >= 1, was 0");
    }

    @Test
    void invalidModuleLimitFailsNamingTheApplicationClassAndTheValue() throws Exception {
        assertThatThrownBy(() -> LimitResolver.declaredOn(BrokenModule.class))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("BrokenModule")
                .hasMessageContaining("windowSeconds must be between 1 and 31536000, was 0");
        assertThatThrownBy(() -> LimitResolver.forResourceMethod(null, BrokenModule.class, TodoResource.class,
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
        assertThatThrownBy(() -> LimitResolver.forResourceMethod(GLOBAL, null, TodoResource.class,
                method(TodoResource.class, "clashesWithGlobal")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageStartingWith("@RateLimit on TodoResource.clashesWithGlobal(): name \"application\"");
    }

    @Test
    void methodLimitNamedLikeItsClassLimitFailsNamingTheMethodAndTheName() {
        assertThatThrownBy(() -> resolve(AdminResource.class, "clashesWithClass"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageStartingWith("@RateLimit on AdminResource.clashesWithClass(): name \"admin\"");
        assertThatThrownBy(() -> LimitResolver.forBeanMethod(AdminResource.class,
                method(AdminResource.class, "clashesWithClass")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("AdminResource.clashesWithClass()")
                .hasMessageContaining("\"admin\"");
    }

    @Test
    void moduleLimitNamedLikeTheGlobalLimitFailsNamingTheMethodAndTheName() {
        assertThatThrownBy(() -> LimitResolver.forResourceMethod(GLOBAL, ModuleClashingWithGlobal.class,
                TodoResource.class, method(TodoResource.class, "one", long.class)))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageStartingWith("@RateLimit on TodoResource.one(long): name \"application\"");
    }

    private static ResolvedLimits resolve(Class<?> type, String methodName) throws NoSuchMethodException {
        return LimitResolver.forResourceMethod(null, null, type, method(type, methodName));
    }

    private static Method method(Class<?> type, String name, Class<?>... parameters) throws NoSuchMethodException {
        return type.getDeclaredMethod(name, parameters);
    }
}
