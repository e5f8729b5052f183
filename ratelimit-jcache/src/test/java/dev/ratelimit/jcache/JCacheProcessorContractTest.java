package dev.ratelimit.jcache;

/** The store contract with the entry processor, run on the member that owns each count. */
class JCacheProcessorContractTest extends JCacheContract {

    @Override
    JCacheRateLimitStore.Mode mode() {
        return JCacheRateLimitStore.Mode.PROCESSOR;
    }
}
