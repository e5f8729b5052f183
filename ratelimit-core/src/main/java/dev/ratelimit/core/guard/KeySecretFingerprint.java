package dev.ratelimit.core.guard;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitStore;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The fingerprint of {@code ratelimit.key-secret} that instances sharing a store leave in it, so that one whose secret
 * differs fails start-up instead of counting every account apart from the others (docs/login-protection.md, "One
 * secret for every instance").
 *
 * <p>The fingerprint is an HMAC-SHA-256 keyed by the secret of a fixed text that starts with a byte no UTF-8 text
 * holds (so no argument's digest is ever the same MAC), base64url: it reveals neither the secret nor a plain hash of
 * it, and no digest of an argument can be told from it.
 */
public final class KeySecretFingerprint {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");
    /** What the fingerprint is a MAC of: {@code 0xFF}, never in UTF-8, then a name. */
    private static final byte[] FIXED_TEXT;
    /** How long start-up waits for the store's answer. */
    static final long WAIT_MILLIS = 5_000;

    static {
        byte[] name = "ratelimit.key-secret fingerprint 1".getBytes(StandardCharsets.US_ASCII);
        FIXED_TEXT = new byte[name.length + 1];
        FIXED_TEXT[0] = (byte) 0xFF;
        System.arraycopy(name, 0, FIXED_TEXT, 1, name.length);
    }

    private KeySecretFingerprint() {
    }

    /** {@code hmac-sha256:} and the MAC of the fixed text keyed by {@code secret}'s UTF-8 bytes, base64url (43 characters). */
    static String of(String secret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return "hmac-sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(FIXED_TEXT));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("ratelimit: HmacSHA256 is not available in this JVM", e);
        }
    }

    /**
     * Leaves the fingerprint of {@code secret} in {@code store} and compares it with the one kept there. The engine
     * calls it when it binds the limits; a store whose connection starts later (a shared store on Quarkus' client)
     * answers then that it cannot keep one yet, and its producer calls this again once it can.
     *
     * @throws InvalidRateLimitException naming {@code ratelimit.key-secret} (not its value) when the store keeps
     *                                   another instance's fingerprint
     */
    public static void check(RateLimitStore store, String secret) {
        String mine = of(secret);
        String kept;
        try {
            kept = store.keySecretFingerprint(mine).toCompletableFuture().get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof UnsupportedOperationException) {
                LOG.log(Level.INFO, "ratelimit: the store " + store.storeName() + " keeps no fingerprint of "
                        + "ratelimit.key-secret now: " + cause.getMessage());
                return;
            }
            LOG.log(Level.WARNING, "ratelimit: could not compare ratelimit.key-secret with the fingerprint kept in the "
                    + "store " + store.storeName() + " (" + cause.getClass().getSimpleName() + "): an instance with "
                    + "another secret would count the keys of per = ARGUMENT limits apart; checked again at the next start");
            return;
        }
        if (kept != null && !kept.equals(mine)) {
            throw new InvalidRateLimitException("ratelimit configuration: ratelimit.key-secret differs from the secret of "
                    + "the instances that share the store " + store.storeName() + " (the fingerprint of theirs is kept "
                    + "there): they would count the keys of per = ARGUMENT limits apart; set the same ratelimit.key-secret "
                    + "on every instance (to change it on all of them, stop them all and remove the fingerprint: see "
                    + "docs/login-protection.md, \"One secret for every instance\")");
        }
    }
}
