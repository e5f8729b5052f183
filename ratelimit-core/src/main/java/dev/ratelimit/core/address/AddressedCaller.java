package dev.ratelimit.core.address;

import dev.ratelimit.core.RateLimitCaller;
import java.net.InetAddress;

/**
 * A caller that comes from an HTTP request and finds its client address itself (the Jakarta REST adapter's):
 * resolved once per request, when the first of the partitioner, a plan resolver or the application asks.
 */
public interface AddressedCaller extends RateLimitCaller {

    /** The request's client; never null ({@link ResolvedClient#known()} false when the runtime cannot tell). */
    ResolvedClient resolvedClient();

    /** The resolved client's address ({@link ResolvedClient#clientAddress()}). */
    @Override
    default InetAddress clientAddress() {
        return resolvedClient().clientAddress();
    }

    /** The resolved client's peer ({@link ResolvedClient#peerAddress()}). */
    @Override
    default InetAddress peerAddress() {
        return resolvedClient().peerAddress();
    }
}
