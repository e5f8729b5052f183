package dev.ratelimit.jcache;

/** The store contract by compare-and-set on the same bytes, for grids that cannot run the library's processor. */
class JCacheCompareAndSetContractTest extends JCacheContract {

    @Override
    JCacheRateLimitStore.Mode mode() {
        return JCacheRateLimitStore.Mode.COMPARE_AND_SET;
    }
}
