/**
 * One limited request on a server, from its first request filter to its response, written once for every
 * adapter: the library's Jakarta REST filters and the Quarkus extension's own filters call
 * {@link dev.ratelimit.core.lifecycle.RequestLifecycle} and keep only what their runtime needs (where the
 * request's ledger lives, how a request is suspended, how a header is written). Not an API: public for the
 * library's adapters, and may change with any release.
 */
package dev.ratelimit.core.lifecycle;
