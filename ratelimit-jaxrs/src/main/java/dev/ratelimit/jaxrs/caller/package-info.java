/**
 * The caller of a Jakarta REST request as the partitioner and the plan resolver see it, shared by the library's
 * filters and a runtime's own (the Quarkus extension's). Not an API for applications: public for those adapters,
 * and may change with any release.
 */
package dev.ratelimit.jaxrs.caller;
