/**
 * One model of a declared limit, and the one place that decides which limits cover a method.
 *
 * <ul>
 *   <li>{@link dev.ratelimit.core.declaration.LimitDeclaration}: what one {@code @RateLimit} (or the global limit of
 *       the configuration) says, every member with its default applied, and where it was found. Readers fill it
 *       from what they see: {@code java.lang.reflect} (ratelimit-cdi), a Jandex index (the Quarkus extension's
 *       build), {@code javax.lang.model} (ratelimit-openapi's annotation processor), the processor's index file
 *       (ratelimit-openapi's filter). They only translate: each hands every member over by name
 *       ({@link dev.ratelimit.core.declaration.LimitDeclaration.Builder#member}), so a member added to the
 *       annotation is added here and nowhere else.</li>
 *   <li>{@link dev.ratelimit.core.declaration.MethodDeclarations}: what a reader found for one method (the module's,
 *       its class's and its own declarations).</li>
 *   <li>{@link dev.ratelimit.core.declaration.LimitResolver}: the method's ordered limits and what is wrong with
 *       them ({@link dev.ratelimit.core.declaration.ResolvedLimits}). Only it makes them.</li>
 *   <li>{@link dev.ratelimit.core.declaration.SharedNames}: the checks that span methods (limits sharing a
 *       name).</li>
 * </ul>
 *
 * <p>Plain values only: no annotation type, no Jakarta or MicroProfile API, no reflection.
 */
package dev.ratelimit.core.declaration;
