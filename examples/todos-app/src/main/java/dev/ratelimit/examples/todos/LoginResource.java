package dev.ratelimit.examples.todos;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Set;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * {@code POST /login}: a form log-in, and the two limits that protect it. Only failed attempts count: a user who logs
 * in twenty times a day is never refused.
 * <ul>
 *   <li>{@code login-address}: five failures per client address in fifteen minutes, in a strict window (no span of
 *       fifteen minutes sees more than five). An attacker guessing from one address is stopped first, by this one.</li>
 *   <li>{@code login-account}: ten failures per account in an hour, from any number of addresses. The account is
 *       counted by its name, normalised (" Carol" and "CAROL" are carol) and kept only as a digest; its count stays
 *       out of the headers of allowed answers. The price: anyone can lock an account out for an hour with ten wrong
 *       passwords.</li>
 * </ul>
 * Example authentication only: the accounts {@code alice}, {@code bob}, {@code carol} and {@code dave} all have the
 * password {@code wonderland}, and the token is the account's name, which {@link BearerAuthenticationFilter} takes.
 * A CDI bean: the limit per account is decided by the interceptor, once the form is read.
 */
@Path("/login")
@ApplicationScoped
public class LoginResource {

    private static final Set<String> ACCOUNTS = Set.of("alice", "bob", "carol", "dave");
    private static final String PASSWORD = "wonderland";

    @POST
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimit(name = "login-address", permitLimit = 5, windowSeconds = 900, per = RateLimitPer.ADDRESS,
            failuresOnly = true, algorithm = RateLimitAlgorithm.STRICT_WINDOW)
    @RateLimit(name = "login-account", permitLimit = 10, windowSeconds = 3600, per = RateLimitPer.ARGUMENT,
            failuresOnly = true)
    @APIResponse(responseCode = "200", description = "Logged in: send the token as Authorization: Bearer <token>.",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Token.class)))
    @APIResponse(responseCode = "400", description = "The form lacks username or password.",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "401", description = "No such account, or the wrong password.",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Token login(@FormParam("username") @RateLimitKey String username, @FormParam("password") String password) {
        if (username == null || password == null) {
            throw new WebApplicationException(Problem.of(Response.Status.BAD_REQUEST,
                    "The form must have a username and a password.").build());
        }
        if (!ACCOUNTS.contains(username) || !PASSWORD.equals(password)) {
            throw new WebApplicationException(Problem.of(Response.Status.UNAUTHORIZED,
                    "The username or the password is wrong.").build());
        }
        return new Token(username);
    }

    /**
     * The answer to a log-in.
     *
     * @param token the example's bearer token for the account: its name
     */
    public record Token(String token) {
    }
}
