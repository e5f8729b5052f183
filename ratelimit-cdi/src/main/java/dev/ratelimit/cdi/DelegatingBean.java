package dev.ratelimit.cdi;

/**
 * A default bean of the library that only delegates to a plain object made when the bean was: the engine,
 * which calls it on every request, holds that object rather than the bean's client proxy.
 *
 * @param <T> the SPI the bean implements
 */
public interface DelegatingBean<T> {

    /** The object this bean delegates to. */
    T delegate();
}
