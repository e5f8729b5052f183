package dev.ratelimit.core.testing;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A naive model of the store contract (counts, algorithms, cost and debt, waiting), written for obviousness rather than
 * speed, against which stores are compared on randomized schedules. Nothing is packed into slots, nothing rolls:
 *
 * <ul>
 *   <li>A window count is a map from step index to the permits spent in it. It is anchored where it is
 *       created, or re-anchored where a request finds it empty, with that request's size. A permit spent at
 *       {@code t} lands in step {@code j = floor((t - anchor) / step)} ({@code step = window / 8}) and returns
 *       at {@code anchor + (j + 8) * step} (sliding) or {@code anchor + (j + 9) * step} (strict).</li>
 *   <li>A token bucket is one instant, {@code tat}: {@code n} permits can be spent when
 *       {@code max(tat, now) + n*I - now <= limit*I}, {@code I} being {@code window / limit} rounded up to
 *       whole microseconds. A full bucket ({@code tat <= now}) of another size is replaced.</li>
 *   <li>All or nothing over the {@code ACQUIRE} limits; {@code SHADOW} spends when it can; {@code CHARGE}
 *       always spends (debt) when the request is allowed.</li>
 *   <li>A give-back removes its permits from their step if they have not returned (and the count has not
 *       been re-anchored since); for a bucket it moves {@code tat} back, never before {@code now}, unless the
 *       bucket has been full since they were spent (then they have returned).</li>
 *   <li>Waiting: a limit that may wait is granted at the earliest instant its permits exist behind
 *       every reservation made before (first come, first served): for a window, the first step {@code m}, no
 *       earlier than the current step nor the last reserved one, whose window {@code (m - S, m]} has room (its
 *       start, or now if it is the current step); for a bucket, {@code max(tat, now) + n*I - limit*I}. The
 *       request goes at the latest grant of its limits, and each spends there (a window in that step, a bucket
 *       from that instant); while a step after the current one holds a reservation, nobody else goes first (no
 *       permits left, a shadow limit would refuse, a charge counts in the last reserved step).</li>
 * </ul>
 * Single-threaded; the caller passes the time of each operation, which must not go back.
 */
public final class ReferenceModel {

    /** One limit of a request, as the model takes it. */
    public record Item(RateLimitPolicy policy, String plan, int cost, Kind kind, long maxWaitNanos, boolean perApplication) {
        public Item(RateLimitPolicy policy) {
            this(policy, null, 1, Kind.ACQUIRE);
        }

        public Item(RateLimitPolicy policy, String plan, int cost, Kind kind) {
            this(policy, plan, cost, kind, 0, false);
        }

        /** An enforced limit of cost 1 that may wait {@code maxWaitNanos} for its permits. */
        public static Item waiting(RateLimitPolicy policy, long maxWaitNanos) {
            return new Item(policy, null, 1, Kind.ACQUIRE, maxWaitNanos, false);
        }

        /** The partition its counts are kept under for a caller of {@code partition}. */
        public String partition(String partition) {
            return perApplication ? "application" : partition;
        }

        /** {@code name} or {@code name/plan}: which counts it spends from. */
        public String key() {
            return plan == null ? policy.name() : policy.name() + "/" + plan;
        }
    }

    /** What the model expects of one limit. */
    public record Expected(RateLimitPolicy policy, State state, int remaining, long resetNanos, long retryAfterNanos,
                           long waitNanos) {
    }

    /** Permits the model spent, for {@link #release}. */
    public record Spent(String key, String partition, long anchor, long step, long permits) {
    }

    /** The model's decision: one expectation per limit in order, and what was spent (nothing when refused). */
    public record Decision(boolean allowed, List<Expected> outcomes, List<Spent> spent) {
    }

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final Map<List<String>, Object> counts = new HashMap<>();

    /** Decides one request at {@code now}, as a store must. */
    public Decision acquire(long now, String partition, List<Item> items, int multiple) {
        List<Object> touched = new ArrayList<>(items.size());
        boolean all = true;
        long goAt = now;
        for (Item item : items) {
            List<String> id = List.of(item.key(), item.partition(partition));
            Object count = counts.get(id);
            if (item.policy().algorithm() == RateLimitAlgorithm.TOKEN_BUCKET) {
                Bucket bucket = (Bucket) count;
                if (bucket == null || (bucket.tat - now <= 0 && !bucket.sizedLike(item.policy()))) {
                    bucket = new Bucket(now, item.policy());
                    counts.put(id, bucket);
                }
                count = bucket;
            } else {
                Window window = (Window) count;
                if (window == null) {
                    window = new Window(now, item.policy());
                    counts.put(id, window);
                }
                window.dropReturned(now);
                if (window.sum() == 0) {
                    window.anchor(now, item.policy());
                }
                count = window;
            }
            long permits = (long) item.cost() * multiple;
            if (item.kind() == Kind.ACQUIRE && item.maxWaitNanos() == 0) {
                all &= has(count, now, permits);
            } else if (item.kind() == Kind.ACQUIRE) {
                long grant = grantAt(count, now, permits);
                all &= grant - now <= item.maxWaitNanos();
                goAt = Math.max(goAt, grant);
            }
            touched.add(count);
        }
        List<Expected> outcomes = new ArrayList<>(items.size());
        List<Spent> spent = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            Item item = items.get(i);
            Object count = touched.get(i);
            long permits = (long) item.cost() * multiple;
            boolean can = item.kind() == Kind.CHARGE || has(count, now, permits);
            boolean canWait = item.kind() == Kind.ACQUIRE && item.maxWaitNanos() > 0
                    && grantAt(count, now, permits) - now <= item.maxWaitNanos();
            State state;
            long retry = 0;
            long wait = 0;
            if (all && item.kind() == Kind.ACQUIRE && goAt > now) {
                spent.add(spendAt(count, now, goAt, permits, item.key(), item.partition(partition)));
                state = State.SPENT;
                wait = goAt - now;
            } else if (all && can) {
                spent.add(spend(count, now, permits, item.key(), item.partition(partition)));
                state = State.SPENT;
            } else if (can || canWait) {
                state = State.UNSPENT;
            } else {
                state = State.REFUSED;
                retry = grantAt(count, now, permits) - now;
            }
            outcomes.add(new Expected(item.policy(), state, state == State.REFUSED ? 0 : remaining(count, now),
                    reset(count, now), retry, wait));
        }
        return new Decision(all, outcomes, spent);
    }

    /** Gives back at {@code now} what {@code decision} spent (charges excluded: the caller leaves them out). */
    public void release(long now, Decision decision) {
        for (Spent s : decision.spent()) {
            Object count = counts.get(List.of(s.key(), s.partition()));
            if (count instanceof Window window) {
                window.dropReturned(now);
                if (window.anchor == s.anchor()) {
                    window.spentIn.computeIfPresent(s.step(), (step, permits) ->
                            permits - Math.min(permits, s.permits()) == 0 ? null : permits - Math.min(permits, s.permits()));
                }
            } else if (count instanceof Bucket bucket && bucket.epoch == s.anchor() && bucket.tat - now > 0) {
                long back = bucket.tat - s.permits() * bucket.interval;
                bucket.tat = back - now > 0 ? back : now;
            }
        }
    }

    /**
     * The instant from which the count of (key, partition) holds nothing (every permit returned; a bucket
     * full), or {@code Long.MIN_VALUE} when there is no such count.
     */
    public long idleAt(String key, String partition) {
        Object count = counts.get(List.of(key, partition));
        if (count instanceof Bucket b) {
            return b.tat;
        }
        if (count instanceof Window w) {
            return w.spentIn.isEmpty() ? w.anchor : w.returnsAt(w.spentIn.lastKey());
        }
        return Long.MIN_VALUE;
    }

    private static boolean has(Object count, long now, long permits) {
        if (count instanceof Bucket b) {
            return Math.max(b.tat, now) + permits * b.interval - now <= b.limit * b.interval;
        }
        Window w = (Window) count;
        return !w.queued(now) && w.sum() + permits <= w.limit;
    }

    /** The earliest instant at which the permits can be spent, behind every reservation. */
    private static long grantAt(Object count, long now, long permits) {
        if (count instanceof Bucket b) {
            return Math.max(now, Math.max(b.tat, now) + permits * b.interval - b.limit * b.interval);
        }
        Window w = (Window) count;
        long k = w.stepOf(now);
        long m = w.spentIn.isEmpty() ? k : Math.max(k, w.spentIn.lastKey());
        if (permits > w.limit) {
            return w.returnsAt(m); // never fits this size: once the count is empty, the request sizes it anew
        }
        while (w.sumOfSteps(m - w.steps + 1, m) + permits > w.limit) {
            m++;
        }
        return m == k ? now : w.anchor + m * w.stepNanos;
    }

    private static Spent spend(Object count, long now, long permits, String key, String partition) {
        if (count instanceof Bucket b) {
            if (b.tat - now <= 0) {
                b.epoch = now; // the bucket stops being full: permits spent from now on belong to this epoch
            }
            b.tat = Math.max(b.tat, now) + permits * b.interval;
            return new Spent(key, partition, b.epoch, 0, permits);
        }
        Window w = (Window) count;
        long step = w.queued(now) ? w.spentIn.lastKey() : w.stepOf(now); // a charge behind the waiting callers
        w.spentIn.merge(step, permits, Long::sum);
        return new Spent(key, partition, w.anchor, step, permits);
    }

    /** Spends at the instant {@code at} where the request goes (a reservation). */
    private static Spent spendAt(Object count, long now, long at, long permits, String key, String partition) {
        if (count instanceof Bucket b) {
            if (b.tat - now <= 0) {
                b.epoch = now;
            }
            b.tat = Math.max(b.tat, at) + permits * b.interval;
            return new Spent(key, partition, b.epoch, 0, permits);
        }
        Window w = (Window) count;
        long step = w.stepOf(at);
        w.spentIn.merge(step, permits, Long::sum);
        return new Spent(key, partition, w.anchor, step, permits);
    }

    private static int remaining(Object count, long now) {
        if (count instanceof Bucket b) {
            long left = b.limit * b.interval - (Math.max(b.tat, now) - now);
            return left <= 0 ? 0 : (int) (left / b.interval);
        }
        Window w = (Window) count;
        return w.queued(now) ? 0 : (int) Math.max(0, w.limit - w.sum());
    }

    private static long reset(Object count, long now) {
        if (count instanceof Bucket b) {
            return b.tat - now > 0 ? b.tat - now : -1;
        }
        Window w = (Window) count;
        return w.spentIn.isEmpty() ? -1 : w.returnsAt(w.spentIn.firstKey()) - now;
    }

    private static final class Window {
        long anchor;
        long stepNanos;
        long limit;
        int steps;
        final TreeMap<Long, Long> spentIn = new TreeMap<>();

        Window(long now, RateLimitPolicy policy) {
            anchor(now, policy);
        }

        void anchor(long now, RateLimitPolicy policy) {
            anchor = now;
            stepNanos = policy.windowSeconds() * NANOS_PER_SECOND / 8;
            limit = policy.permitLimit();
            steps = policy.algorithm() == RateLimitAlgorithm.STRICT_WINDOW ? 9 : 8;
            spentIn.clear();
        }

        long returnsAt(long step) {
            return anchor + (step + steps) * stepNanos;
        }

        long stepOf(long t) {
            return (t - anchor) / stepNanos;
        }

        /** True while some step after the current one holds a reservation: callers wait in line. */
        boolean queued(long now) {
            return !spentIn.isEmpty() && spentIn.lastKey() > stepOf(now);
        }

        long sumOfSteps(long from, long to) {
            long sum = 0;
            for (long permits : spentIn.subMap(from, true, to, true).values()) {
                sum += permits;
            }
            return sum;
        }

        void dropReturned(long now) {
            spentIn.keySet().removeIf(step -> returnsAt(step) - now <= 0);
        }

        long sum() {
            long sum = 0;
            for (long permits : spentIn.values()) {
                sum += permits;
            }
            return sum;
        }
    }

    private static final class Bucket {
        final long interval;
        final long limit;
        long tat;
        long epoch;

        Bucket(long now, RateLimitPolicy policy) {
            epoch = now;
            tat = now;
            limit = policy.permitLimit();
            long windowMicros = policy.windowSeconds() * 1_000_000L;
            interval = (windowMicros + limit - 1) / limit * 1_000L;
        }

        boolean sizedLike(RateLimitPolicy policy) {
            Bucket other = new Bucket(0, policy);
            return other.limit == limit && other.interval == interval;
        }
    }
}
