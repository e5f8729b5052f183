package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.cdi.LimitedBeanClasses;
import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.quarkus.runtime.Bindings;
import dev.ratelimit.quarkus.runtime.RateLimitConfigBuilder;
import dev.ratelimit.quarkus.runtime.RateLimitFilters;
import dev.ratelimit.quarkus.runtime.RateLimitRecorder;
import dev.ratelimit.quarkus.runtime.RateLimitStarted;
import dev.ratelimit.quarkus.runtime.ScopeFilter;
import dev.ratelimit.quarkus.runtime.ResourceMethodHandler;
import dev.ratelimit.quarkus.runtime.ResourceMethodLimits;
import dev.ratelimit.quarkus.runtime.VertxRequestLedgers;
import dev.ratelimit.jaxrs.RateLimitFeature;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.AnnotationsTransformerBuildItem;
import io.quarkus.arc.deployment.BeanContainerBuildItem;
import io.quarkus.arc.deployment.BuildTimeConditionBuildItem;
import io.quarkus.arc.deployment.SyntheticBeanBuildItem;
import io.quarkus.arc.deployment.UnremovableBeanBuildItem;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.Consume;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Produce;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.RunTimeConfigBuilderBuildItem;
import io.quarkus.deployment.builditem.ServiceStartBuildItem;
import io.quarkus.deployment.builditem.StaticInitConfigBuilderBuildItem;
import io.quarkus.resteasy.reactive.common.deployment.ApplicationResultBuildItem;
import io.quarkus.resteasy.reactive.common.deployment.ResourceScanningResultBuildItem;
import io.quarkus.resteasy.reactive.server.deployment.SetupEndpointsResultBuildItem;
import io.quarkus.resteasy.reactive.server.spi.MethodScannerBuildItem;
import io.quarkus.resteasy.reactive.spi.ContainerRequestFilterBuildItem;
import io.quarkus.resteasy.reactive.spi.CustomContainerRequestFilterBuildItem;
import io.quarkus.resteasy.reactive.spi.CustomContainerResponseFilterBuildItem;
import jakarta.inject.Singleton;
import jakarta.ws.rs.Priorities;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.AnnotationTransformation;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.Type;
import org.jboss.resteasy.reactive.server.model.FixedHandlerChainCustomizer;
import org.jboss.resteasy.reactive.server.model.HandlerChainCustomizer;
import org.jboss.resteasy.reactive.server.processor.scanning.MethodScanner;

/**
 * The extension's build steps. The limits are read from the Jandex index ({@link Declarations}), resolved and checked
 * at build time by the resolver every runtime uses ({@link LimitResolver}; a bad one fails the build, naming the
 * method and the value), then recorded and bound at run-time init with the run-time configuration. The request path is Quarkus REST's own: a handler first in each resource method's chain (its
 * binding by a fixed index) and generated request and response filters; the library's portable
 * {@code DynamicFeature} is switched off, and the CDI interceptor is taken off the resource methods that the filters
 * decide (bean limits elsewhere keep it).
 *
 * <p>One job, over 400 lines: the extension's build steps, in the one processor class Quarkus extensions keep them in;
 * what a step computes is in classes of its own ({@link Declarations} and the others of this package). The Dev UI's step
 * is in a package of its own ({@code devui}), the OpenAPI document's in a class of its own ({@link OpenApiProcessor}).
 */
class RateLimitProcessor {

    static final String FEATURE = "ratelimit";
    private static final DotName LIBRARY_FEATURE = DotName.createSimple("dev.ratelimit.jaxrs.RateLimitFeature");
    private static final DotName DEPLOYMENT_FEATURE = DotName.createSimple("dev.ratelimit.jaxrs.internal.DeploymentFeature");
    private static final DotName ADMIN_RESOURCE = DotName.createSimple("dev.ratelimit.jaxrs.internal.AdminResource");
    private static final DotName CONTAINER_REQUEST_FILTER = DotName.createSimple("jakarta.ws.rs.container.ContainerRequestFilter");
    private static final DotName PRE_MATCHING = DotName.createSimple("jakarta.ws.rs.container.PreMatching");
    private static final DotName NON_BLOCKING = DotName.createSimple("io.smallrye.common.annotation.NonBlocking");
    private static final DotName ADMIN_PATH_FILTER = DotName.createSimple("dev.ratelimit.jaxrs.internal.AdminPathFilter");
    private static final DotName PRIORITY = DotName.createSimple("jakarta.annotation.Priority");
    private static final DotName SERVER_REQUEST_FILTER =
            DotName.createSimple("org.jboss.resteasy.reactive.server.ServerRequestFilter");

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    void beans(BuildProducer<AdditionalBeanBuildItem> beans, BuildProducer<UnremovableBeanBuildItem> unremovable) {
        beans.produce(AdditionalBeanBuildItem.builder().addBeanClasses(VertxRequestLedgers.class, RateLimitStarted.class,
                        Bindings.class)
                .setUnremovable().build());
        unremovable.produce(UnremovableBeanBuildItem.beanTypes(RateLimitRuntime.class));
    }

    /** Unlisted {@code ratelimit.*} keys stay the library's business ({@link RateLimitConfigBuilder}). */
    @BuildStep
    void config(BuildProducer<RunTimeConfigBuilderBuildItem> runTime, BuildProducer<StaticInitConfigBuilderBuildItem> staticInit) {
        runTime.produce(new RunTimeConfigBuilderBuildItem(RateLimitConfigBuilder.class));
        staticInit.produce(new StaticInitConfigBuilderBuildItem(RateLimitConfigBuilder.class));
    }

    /**
     * Every {@code @RateLimit}, read; the module's limits and every limited bean method resolved (the resource methods
     * are as Quarkus REST deploys them: {@link #scanner}). What is wrong fails the build in {@link #validate}.
     */
    @BuildStep
    LimitsBuildItem limits(CombinedIndexBuildItem combined, Optional<ResourceScanningResultBuildItem> scanning,
                           Optional<ApplicationResultBuildItem> application) {
        IndexView index = combined.getIndex();
        Set<DotName> httpMethods = new HashSet<>(Declarations.HTTP_METHODS);
        scanning.ifPresent(s -> httpMethods.addAll(s.getResult().getHttpAnnotationToMethod().keySet()));
        Declarations declarations = new Declarations(index, httpMethods,
                application.map(a -> a.getResult().getSelectedAppClass()).orElse(null));
        // the classes Quarkus REST serves, and the classes and interfaces they inherit resource methods from
        Set<DotName> served = new HashSet<>();
        scanning.ifPresent(s -> {
            served.addAll(s.getResult().getScannedResources().keySet());
            served.addAll(s.getResult().getPossibleSubResources().keySet());
        });
        Set<DotName> hierarchy = new HashSet<>();
        for (DotName c : served) {
            addWithSupertypes(index, c, hierarchy);
        }
        Set<String> unboundMethods = new HashSet<>();
        Set<DotName> unboundClasses = new HashSet<>();
        for (ClassInfo c : declarations.limitedClasses()) {
            if (!hierarchy.contains(c.name())) {
                continue;
            }
            boolean resourceMethods = false;
            for (MethodInfo m : c.methods()) {
                if (declarations.isResourceMethod(m)) {
                    resourceMethods = true;
                    // a method with a key keeps its binding: the interceptor decides its limits per argument
                    if (declarations.hasMethodLimits(m) && !declarations.hasKeyParameter(m)) {
                        unboundMethods.add(Declarations.key(m));
                    }
                }
            }
            if (resourceMethods && served.contains(c.name()) && declarations.hasClassLimits(c)) {
                unboundClasses.add(c.name());
            }
        }
        LimitsBuildItem limits = new LimitsBuildItem(declarations, unboundMethods, unboundClasses);
        limits.problems(LimitResolver.check(declarations.module(), MethodDeclarations.Kind.RESOURCE_METHOD));
        for (ClassInfo c : declarations.limitedClasses()) {
            boolean classLimited = declarations.hasClassLimits(c);
            for (MethodInfo m : c.methods()) {
                if (Declarations.isBusinessMethod(m) && (classLimited || declarations.hasMethodLimits(m))) {
                    limits.resolved(LimitResolver.resolve(null, declarations.beanMethod(c, m)));
                }
            }
        }
        for (MethodInfo m : declarations.keyedMethods()) {
            ClassInfo c = m.declaringClass();
            if (!declarations.hasClassLimits(c) && !declarations.hasMethodLimits(m)) {
                // a key that no limit counts by: the resolver says so, naming the method
                limits.resolved(LimitResolver.resolve(null, declarations.beanMethod(c, m)));
            }
        }
        return limits;
    }

    /**
     * Fails the build, listing every problem, each naming the method and the value: what the resolver found wrong with
     * each method's limits, and limits sharing a name that disagree on their algorithm or {@code per} (with the
     * overrides of the build's configuration, which start-up checks again with the run-time one).
     *
     * @param endpointsDeployed only orders this step after Quarkus REST has deployed its endpoints: the scanner has
     *                          resolved every resource method then
     */
    @BuildStep
    @Produce(ValidatedLimitsBuildItem.class)
    void validate(LimitsBuildItem limits, Optional<SetupEndpointsResultBuildItem> endpointsDeployed) {
        RateLimitSettings settings;
        try {
            settings = RateLimitSettings.load(RateLimitConfiguration.source(ConfigProvider.getConfig()));
        } catch (InvalidRateLimitException e) {
            settings = RateLimitSettings.of(Map.of()); // start-up fails on it, with the run-time configuration
        }
        List<String> problems = limits.problems(settings);
        if (!problems.isEmpty()) {
            throw new InvalidRateLimitsException(problems);
        }
    }

    private static void addWithSupertypes(IndexView index, DotName name, Set<DotName> into) {
        if (name == null || !into.add(name)) {
            return;
        }
        ClassInfo c = index.getClassByName(name);
        if (c != null) {
            addWithSupertypes(index, c.superName(), into);
            for (DotName i : c.interfaceNames()) {
                addWithSupertypes(index, i, into);
            }
        }
    }

    /**
     * The CDI interceptor off the resource methods that the filters decide: their own {@code @RateLimit} taken off
     * them in ArC's view; a resource class's {@code @RateLimit} taken off the class and put on each of its other
     * business methods, which keep their limit. A resource method with a {@code @RateLimitKey} parameter keeps (or
     * gets) the binding: the interceptor decides its limits per argument, once the method is invoked. Reflection still
     * sees every annotation, and so do Quarkus REST and the OpenAPI scanner.
     */
    @BuildStep
    void unbind(LimitsBuildItem limits, CombinedIndexBuildItem combined, BuildProducer<AnnotationsTransformerBuildItem> transformers) {
        Set<String> methods = limits.unboundMethods;
        Set<DotName> classes = limits.unboundClasses;
        if (!methods.isEmpty()) {
            transformers.produce(new AnnotationsTransformerBuildItem(AnnotationTransformation.forMethods()
                    .whenAnyMatch(Declarations.RATE_LIMIT, Declarations.RATE_LIMIT_LIST)
                    .when(context -> methods.contains(Declarations.key(context.declaration().asMethod())))
                    .transform(context -> context.remove(Declarations::isLimit))));
        }
        if (classes.isEmpty()) {
            return;
        }
        transformers.produce(new AnnotationsTransformerBuildItem(AnnotationTransformation.forClasses()
                .whenAnyMatch(Declarations.RATE_LIMIT, Declarations.RATE_LIMIT_LIST)
                .when(context -> classes.contains(context.declaration().asClass().name()))
                .transform(context -> context.remove(Declarations::isLimit))));
        IndexView index = combined.getIndex();
        Map<String, List<AnnotationInstance>> moved = new HashMap<>();
        for (DotName name : classes) {
            ClassInfo c = index.getClassByName(name);
            List<AnnotationInstance> classLevel = new ArrayList<>();
            for (AnnotationInstance a : c.declaredAnnotations()) {
                if (Declarations.isLimit(a)) {
                    classLevel.add(a);
                }
            }
            for (MethodInfo m : c.methods()) {
                if (Declarations.isBusinessMethod(m) && (!limits.declarations.isResourceMethod(m)
                        || limits.declarations.hasKeyParameter(m))) {
                    List<AnnotationInstance> copies = new ArrayList<>();
                    for (AnnotationInstance a : classLevel) {
                        copies.add(AnnotationInstance.create(a.name(), m, a.values()));
                    }
                    moved.put(Declarations.key(m), copies);
                }
            }
        }
        if (!moved.isEmpty()) {
            transformers.produce(new AnnotationsTransformerBuildItem(AnnotationTransformation.forMethods()
                    .when(context -> moved.containsKey(Declarations.key(context.declaration().asMethod())))
                    .transform(context -> {
                        // a method of its own limits keeps its own binding, and its interceptor reads both by reflection
                        if (!context.hasAnnotation(Declarations::isLimit)) {
                            context.addAll(moved.get(Declarations.key(context.declaration().asMethod())));
                        }
                    })));
        }
    }

    /**
     * The library's portable {@code DynamicFeature} off: its filters would decide a second time; and its feature that
     * listens for Jersey's start (Quarkus says when it started: {@code RateLimitStarted}).
     */
    @BuildStep
    void vetoLibraryFeature(CombinedIndexBuildItem combined, BuildProducer<BuildTimeConditionBuildItem> conditions) {
        for (DotName name : List.of(LIBRARY_FEATURE, DEPLOYMENT_FEATURE)) {
            ClassInfo feature = combined.getIndex().getClassByName(name);
            if (feature != null) {
                conditions.produce(new BuildTimeConditionBuildItem(feature, false));
            }
        }
    }

    /**
     * The library's request and response filters, and each scope's filter ({@link ScopeFilter}) at its priority:
     * non-blocking (on the event loop, before a blocking method is dispatched to a worker) unless a request filter of
     * the application's, not non-blocking, would run before the PRINCIPAL scope (pre-matching, or of a priority up to
     * its): Quarkus REST runs the non-blocking filters first, so the limits would then be decided before it, and a
     * user's own authentication or authorization filter must run first. Nor when authentication is not proactive (the
     * caller would be resolved on the event loop, which must not wait). Any such filter in the index counts, whatever
     * it is bound to.
     */
    @BuildStep
    void filters(CombinedIndexBuildItem combined, BuildProducer<CustomContainerRequestFilterBuildItem> requests,
                 BuildProducer<CustomContainerResponseFilterBuildItem> responses,
                 BuildProducer<ContainerRequestFilterBuildItem> scopes,
                 BuildProducer<BuildTimeConditionBuildItem> conditions) {
        requests.produce(new CustomContainerRequestFilterBuildItem(RateLimitFilters.class.getName()));
        responses.produce(new CustomContainerResponseFilterBuildItem(RateLimitFilters.class.getName()));
        boolean proactive = ConfigProvider.getConfig().getOptionalValue("quarkus.http.auth.proactive", Boolean.class)
                .orElse(true);
        boolean beforeDispatch = proactive
                && firstBlockingRequestFilter(combined.getIndex()) > RateLimitFeature.PRINCIPAL_PRIORITY;
        scopes.produce(new ContainerRequestFilterBuildItem.Builder(ScopeFilter.Transport.class.getName())
                .setPriority(RateLimitFeature.TRANSPORT_PRIORITY).setNonBlockingRequired(beforeDispatch).build());
        scopes.produce(new ContainerRequestFilterBuildItem.Builder(ScopeFilter.Principal.class.getName())
                .setPriority(RateLimitFeature.PRINCIPAL_PRIORITY).setNonBlockingRequired(beforeDispatch).build());
        ClassInfo adminPath = combined.getIndex().getClassByName(ADMIN_PATH_FILTER);
        if (beforeDispatch && adminPath != null) {
            // Quarkus REST wants every non-blocking filter before any other, pre-matching ones included: the library's
            // admin path filter (pre-matching, on the event loop as every pre-matching filter, blocking nothing) is
            // registered as non-blocking instead of found as a provider
            conditions.produce(new BuildTimeConditionBuildItem(adminPath, false));
            scopes.produce(new ContainerRequestFilterBuildItem.Builder(ADMIN_PATH_FILTER.toString()).setPreMatching(true)
                    .setNonBlockingRequired(true).build());
        }
    }

    /**
     * The lowest priority of the request filters in {@code index}, other than the library's, that are not non-blocking
     * ({@code Integer.MAX_VALUE}: none; {@code Integer.MIN_VALUE} for a pre-matching one, which runs before any other):
     * classes implementing {@code ContainerRequestFilter} and methods annotated {@code @ServerRequestFilter}.
     */
    static int firstBlockingRequestFilter(IndexView index) {
        int first = Integer.MAX_VALUE;
        for (ClassInfo c : index.getAllKnownImplementors(CONTAINER_REQUEST_FILTER)) {
            if (c.isInterface() || Modifier.isAbstract(c.flags()) || library(c) || c.hasDeclaredAnnotation(NON_BLOCKING)) {
                continue;
            }
            AnnotationInstance priority = c.declaredAnnotation(PRIORITY);
            first = Math.min(first, c.hasDeclaredAnnotation(PRE_MATCHING) ? Integer.MIN_VALUE // runs before any other
                    : priority == null ? Priorities.USER : priority.value().asInt());
        }
        for (AnnotationInstance filter : index.getAnnotations(SERVER_REQUEST_FILTER)) {
            if (filter.target().kind() != AnnotationTarget.Kind.METHOD
                    || library(filter.target().asMethod().declaringClass())
                    || filter.valueWithDefault(index, "nonBlocking").asBoolean()) {
                continue;
            }
            first = Math.min(first, filter.valueWithDefault(index, "preMatching").asBoolean() ? Integer.MIN_VALUE
                    : filter.valueWithDefault(index, "priority").asInt());
        }
        return first;
    }

    /** The library's own filters: this extension's runtime and ratelimit-jaxrs (not an application's dev.ratelimit.*). */
    private static boolean library(ClassInfo c) {
        String name = c.name().toString();
        return name.startsWith("dev.ratelimit.quarkus.runtime.") || name.startsWith("dev.ratelimit.jaxrs.");
    }

    /**
     * One {@link ResourceMethodHandler} first in each resource method's chain, carrying the index of the method's
     * binding; the method, its declarations and its index recorded for run-time init, its limits resolved now for the
     * build's checks. Every resource method gets one: a global limit, known at run time only, covers each.
     */
    @BuildStep
    MethodScannerBuildItem scanner(LimitsBuildItem limits) {
        Declarations d = limits.declarations;
        return new MethodScannerBuildItem(new MethodScanner() {
            @Override
            public List<HandlerChainCustomizer> scan(MethodInfo method, ClassInfo actualEndpointClass,
                                                     Map<String, Object> methodContext) {
                if (actualEndpointClass.name().equals(ADMIN_RESOURCE)) {
                    return List.of(); // the admin API is bound to no limit, the global one included
                }
                MethodInfo own = actualEndpointClass.method(method.name(), method.parameterTypes().toArray(new Type[0]));
                if (own == null) {
                    own = method;
                }
                MethodDeclarations declared = d.resourceMethod(actualEndpointClass, own, method);
                boolean intercepted = (d.hasClassLimits(actualEndpointClass)
                        && !limits.unboundClasses.contains(actualEndpointClass.name()))
                        || (d.hasMethodLimits(own) && !limits.unboundMethods.contains(Declarations.key(own)))
                        || (d.hasKeyParameter(own) && (d.hasMethodLimits(own) || d.hasClassLimits(actualEndpointClass)));
                MethodInfo javaMethod = own;
                List<String> parameters = new ArrayList<>();
                for (Type p : javaMethod.parameterTypes()) {
                    parameters.add(Declarations.className(p));
                }
                int id = limits.add(i -> new ResourceMethodLimits(i, declared, intercepted,
                        javaMethod.declaringClass().name().toString(), javaMethod.name(), List.copyOf(parameters)),
                        LimitResolver.resolve(null, declared));
                return List.of(new FixedHandlerChainCustomizer(new ResourceMethodHandler(id),
                        HandlerChainCustomizer.Phase.AFTER_MATCH));
            }
        });
    }

    /**
     * The classes with limited bean methods (the interceptor's: not the resource methods the filters decide): the
     * library's start-up reflects on those only, not on every bean of the application.
     */
    @BuildStep
    @Record(ExecutionTime.STATIC_INIT)
    SyntheticBeanBuildItem limitedBeanClasses(RateLimitRecorder recorder, LimitsBuildItem limits) {
        List<String> names = new ArrayList<>();
        for (ClassInfo c : limits.declarations.limitedClasses()) {
            if (limits.hasInterceptedMethods(c)) {
                names.add(c.name().toString());
            }
        }
        return SyntheticBeanBuildItem.configure(LimitedBeanClasses.class).scope(Singleton.class).unremovable()
                .supplier(recorder.limitedBeanClasses(names)).done();
    }

    /**
     * Binds every resource method at run-time init, before the HTTP server accepts a request: each method's declarations
     * resolved again with the run-time configuration's global limit, and bound with the run-time configuration. A
     * limit that only the run-time configuration makes invalid fails the start.
     *
     * @param beans only orders this step after the bean container has started: the bindings are a bean's
     */
    @BuildStep
    @Consume(ValidatedLimitsBuildItem.class)
    @Record(ExecutionTime.RUNTIME_INIT)
    ServiceStartBuildItem bind(RateLimitRecorder recorder, LimitsBuildItem limits, BeanContainerBuildItem beans) {
        recorder.bind(limits.resourceMethods());
        return new ServiceStartBuildItem(FEATURE);
    }
}
