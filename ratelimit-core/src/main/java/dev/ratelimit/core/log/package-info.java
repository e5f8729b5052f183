/**
 * What the library writes to its log: text that a client or an operator chose (a partition, a limit or plan name, a
 * caller, a configuration key or value) with its control characters escaped ({@link dev.ratelimit.core.log.LogText}),
 * so that no value can start a line of its own. Not an API: public for the library's adapters.
 */
package dev.ratelimit.core.log;
