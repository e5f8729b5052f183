package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.binding.RefusalSummary.Refused;
import dev.ratelimit.core.live.LimitAdmin.LimitView;
import dev.ratelimit.core.live.LimitAdmin.PlanView;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The admin resource's JSON bodies (docs/operating-limits.md, "The admin API"), written by hand: the library brings no
 * JSON provider of its own, and the runtimes bring different ones. The shapes are those the OpenAPI document describes
 * (ratelimit-openapi).
 */
final class AdminJson {

    private AdminJson() {
    }

    static String limits(List<LimitView> limits) {
        StringBuilder s = new StringBuilder("{\"limits\":[");
        for (int i = 0; i < limits.size(); i++) {
            LimitView limit = limits.get(i);
            if (i > 0) {
                s.append(',');
            }
            s.append("{\"name\":").append(string(limit.name()));
            values(s, limit.permitLimit(), limit.windowSeconds(), limit.algorithm().name(),
                    limit.mode().name().toLowerCase(Locale.ROOT));
            s.append(",\"plans\":{");
            boolean first = true;
            for (Map.Entry<String, PlanView> plan : limit.plans().entrySet()) {
                if (!first) {
                    s.append(',');
                }
                first = false;
                PlanView v = plan.getValue();
                s.append(string(plan.getKey())).append(":{");
                values(s, v.permitLimit(), v.windowSeconds(), v.algorithm().name(),
                        v.mode().name().toLowerCase(Locale.ROOT));
                s.deleteCharAt(s.lastIndexOf("{") + 1); // no member before the first: drop values()' comma
                s.append('}');
            }
            s.append("},\"declaredOn\":[");
            for (int d = 0; d < limit.declaredOn().size(); d++) {
                s.append(d > 0 ? "," : "").append(string(limit.declaredOn().get(d)));
            }
            s.append("]}");
        }
        return s.append("]}").toString();
    }

    private static void values(StringBuilder s, int permitLimit, int windowSeconds, String algorithm, String mode) {
        s.append(",\"permitLimit\":").append(permitLimit).append(",\"windowSeconds\":").append(windowSeconds)
                .append(",\"algorithm\":").append(string(algorithm)).append(",\"mode\":").append(string(mode));
    }

    static String count(String name, String partition, String plan, CountState state) {
        return "{\"limit\":" + string(name) + ",\"partition\":" + string(partition)
                + (plan == null ? "" : ",\"plan\":" + string(plan)) + ",\"permitLimit\":" + state.policy().permitLimit()
                + ",\"windowSeconds\":" + state.policy().windowSeconds() + ",\"remaining\":" + state.remaining()
                + ",\"resetSeconds\":" + (state.resetNanos() < 0 ? 0 : RateLimitDecision.roundUpToSeconds(state.resetNanos()))
                + ",\"inDebt\":" + state.inDebt() + ",\"debt\":" + state.debt() + "}";
    }

    static String refused(String name, List<Refused> refused) {
        StringBuilder s = new StringBuilder("{\"limit\":").append(string(name)).append(",\"refused\":[");
        for (int i = 0; i < refused.size(); i++) {
            Refused r = refused.get(i);
            s.append(i > 0 ? "," : "").append("{\"partition\":").append(string(r.partition())).append(",\"count\":")
                    .append(r.count()).append(",\"overcount\":").append(r.overcount()).append('}');
        }
        return s.append("]}").toString();
    }

    /** An RFC 9457 problem. */
    static String problem(int status, String title, String detail) {
        return "{\"type\":\"about:blank\",\"title\":" + string(title) + ",\"status\":" + status + ",\"detail\":"
                + string(detail) + "}";
    }

    static String string(String value) {
        StringBuilder s = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                case '\n' -> s.append("\\n");
                case '\r' -> s.append("\\r");
                case '\t' -> s.append("\\t");
                default -> {
                    if (c < 0x20) {
                        s.append(String.format("\\u%04x", (int) c));
                    } else {
                        s.append(c);
                    }
                }
            }
        }
        return s.append('"').toString();
    }
}
