/**
 * The CDI integration's implementation: the interceptors, the beans behind {@code dev.ratelimit}'s API and
 * {@code dev.ratelimit.cdi}'s contract, the start-up line. Internal to {@code ratelimit-cdi}: no other module
 * imports it.
 */
package dev.ratelimit.cdi.internal;
