/**
 * Binding at deployment: each call site's limits bound once, before any request, in the configuration in force
 * ({@link dev.ratelimit.core.binding.LimitBinder}, {@link dev.ratelimit.core.binding.CallSiteBinder}), each (limit
 * name, plan) bound to the store and its metric counters ({@link dev.ratelimit.core.binding.CountBindings},
 * {@link dev.ratelimit.core.binding.BoundKey}), and every call site bound again in each configuration that live values
 * put in force ({@link dev.ratelimit.core.binding.LiveLimits}: what a request reads, once). Also what is fixed when a
 * call site is bound: the plans ({@link dev.ratelimit.core.binding.PlanIndex}, {@link
 * dev.ratelimit.core.binding.RolePlanResolver}), the digests of keys ({@link dev.ratelimit.core.binding.ArgumentKeys}),
 * the start-up line ({@link dev.ratelimit.core.binding.StartupText}).
 *
 * <p>Uses {@code dev.ratelimit.core.guard} (the store it binds to); never the request path ({@code engine}) nor live
 * values ({@code live}). Not an API: its public types are public for the library's other packages and adapters, and
 * may change with any release.
 */
package dev.ratelimit.core.binding;
