package dev.ratelimit.openapi.internal.index;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.StringJoiner;

/**
 * The index resource, {@value #LOCATION}: UTF-8 text, one record a line, fields separated by tabs,
 * {@code #} comments. Written by the annotation processor, read by the OpenAPI filter and the
 * start-up check. Lines are sorted, so one source always gives the same bytes.
 *
 * <pre>
 * ratelimit-index	2
 * application	&lt;binary class name&gt;	&lt;application path&gt;	&lt;limits&gt;
 * method	&lt;root class&gt;	&lt;HTTP method&gt;	&lt;path below the application&gt;	&lt;java method&gt;	&lt;class limits&gt;	&lt;method limits&gt;
 * </pre>
 *
 * A java method is {@code <binary class name>#<name>(<parameter type>,...)}, parameter types erased,
 * in the form {@link Class#getTypeName()} gives ({@code java.lang.String[]}, {@code a.b.Outer$Inner}).
 * Limits are {@code <name>;<permitLimit>;<windowSeconds>;<scope>;<algorithm>;<cost>} items separated by
 * commas, in declaration order; an empty field is no limit. Paths escape backslash, tab and line breaks.
 * Readers skip record kinds they do not know, so later versions may add some.
 *
 * <p>Version 1 (before {@code @RateLimit} had {@code algorithm} and {@code cost}) wrote limits as
 * {@code <name>;<permitLimit>;<windowSeconds>;<scope>}; it is still read, as the defaults of the two
 * members that its annotation did not have ({@code SLIDING_WINDOW}, cost 1). A later version than
 * {@value #VERSION} is refused with a message saying so: its limits may mean something this reader
 * does not know.
 */
public final class IndexFormat {

    /** Where each compilation's index is, in its class output (and so in its jar). */
    public static final String LOCATION = "META-INF/ratelimit/resource-methods.idx";

    static final String HEADER = "ratelimit-index";
    static final int VERSION = 2;
    /** The first version, still read: limits without algorithm and cost. */
    static final int VERSION_1 = 1;
    static final String APPLICATION = "application";
    static final String METHOD = "method";

    private IndexFormat() {
    }

    /** The key of a resource method as the runtime sees it: the resource class (not the declaring one) and the method. */
    public static String methodKey(Class<?> resourceClass, Method method) {
        StringJoiner params = new StringJoiner(",", "(", ")");
        for (Class<?> type : method.getParameterTypes()) {
            params.add(type.getTypeName());
        }
        return resourceClass.getName() + "#" + method.getName() + params;
    }

    public static void write(Writer out, List<IndexedApplication> applications, List<IndexedMethod> methods)
            throws IOException {
        out.write("# Jakarta REST resource methods and their @RateLimit declarations, written when this code was compiled\n"
                + "# by the ratelimit-openapi annotation processor; read by dev.ratelimit.openapi.RateLimitOASFilter.\n"
                + "# Generated: do not edit.\n");
        out.write(HEADER + "\t" + VERSION + "\n");
        List<String> lines = new ArrayList<>();
        List<IndexedApplication> sortedApplications = new ArrayList<>(applications);
        sortedApplications.sort(Comparator.comparing(IndexedApplication::className));
        for (IndexedApplication a : sortedApplications) {
            lines.add(String.join("\t", APPLICATION, a.className(), escape(a.path()), limits(a.moduleLimits())));
        }
        List<IndexedMethod> sorted = new ArrayList<>(methods);
        sorted.sort(Comparator.comparing(IndexedMethod::path).thenComparing(IndexedMethod::httpMethod)
                .thenComparing(IndexedMethod::javaMethod).thenComparing(IndexedMethod::rootClass));
        for (IndexedMethod m : sorted) {
            lines.add(String.join("\t", METHOD, m.rootClass(), m.httpMethod(), escape(m.path()), m.javaMethod(),
                    limits(m.classLimits()), limits(m.methodLimits())));
        }
        lines.sort(Comparator.comparing((String line) -> !line.startsWith(APPLICATION)));
        for (String line : lines) {
            out.write(line);
            out.write('\n');
        }
    }

    /**
     * Reads one index resource.
     *
     * @throws IOException naming the source and the line when it is not an index this version reads
     */
    public static IndexFile read(Reader in, String source) throws IOException {
        List<IndexedApplication> applications = new ArrayList<>();
        List<IndexedMethod> methods = new ArrayList<>();
        BufferedReader lines = new BufferedReader(in);
        boolean headerSeen = false;
        int version = VERSION;
        int number = 0;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            number++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            try {
                if (!headerSeen) {
                    if (f.length < 2 || !HEADER.equals(f[0])) {
                        throw new IllegalArgumentException("expected \"" + HEADER + "\" and a version");
                    }
                    version = version(f[1]);
                    headerSeen = true;
                } else if (APPLICATION.equals(f[0])) {
                    fields(f, 4);
                    applications.add(new IndexedApplication(f[1], PathTemplates.normalize(unescape(f[2])),
                            parseLimits(f[3], version)));
                } else if (METHOD.equals(f[0])) {
                    fields(f, 7);
                    if (f[4].indexOf('#') < 1) {
                        throw new IllegalArgumentException("java method without a class: " + f[4]);
                    }
                    methods.add(new IndexedMethod(f[1], f[2], PathTemplates.normalize(unescape(f[3])), f[4],
                            parseLimits(f[5], version), parseLimits(f[6], version)));
                }
            } catch (IllegalArgumentException e) {
                throw new IOException(source + ", line " + number + ": " + e.getMessage(), e);
            }
        }
        if (!headerSeen) {
            throw new IOException(source + ": empty, not a ratelimit index");
        }
        return new IndexFile(source, applications, methods);
    }

    private static void fields(String[] f, int count) {
        if (f.length < count) {
            throw new IllegalArgumentException("a \"" + f[0] + "\" record has " + count + " fields, this one "
                    + f.length);
        }
    }

    /** The version of a header line; a later one than this reader knows, or none, is refused. */
    private static int version(String field) {
        int version;
        try {
            version = Integer.parseInt(field.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("format version \"" + field + "\" is not a number");
        }
        if (version > VERSION) {
            throw new IllegalArgumentException("format version " + version + " is newer than this ratelimit-openapi "
                    + "reads (" + VERSION_1 + " to " + VERSION + "): the code was compiled with a later version of "
                    + "ratelimit-openapi than the one it runs with; use one version for both");
        }
        if (version < VERSION_1) {
            throw new IllegalArgumentException("format version " + version + " does not exist");
        }
        return version;
    }

    static String limits(List<IndexedLimit> limits) {
        StringJoiner items = new StringJoiner(",");
        for (IndexedLimit limit : limits) {
            RateLimitPolicy p = limit.policy();
            items.add(p.name() + ";" + p.permitLimit() + ";" + p.windowSeconds() + ";" + limit.scope().name() + ";"
                    + p.algorithm().name() + ";" + limit.cost());
        }
        return items.toString();
    }

    static List<IndexedLimit> parseLimits(String field, int version) {
        List<IndexedLimit> limits = new ArrayList<>();
        if (field.isEmpty()) {
            return limits;
        }
        int fields = version == VERSION_1 ? 4 : 6;
        for (String item : field.split(",")) {
            String[] p = item.split(";", -1);
            if (p.length != fields) {
                throw new IllegalArgumentException("a limit is name;permitLimit;windowSeconds;scope"
                        + (version == VERSION_1 ? "" : ";algorithm;cost") + " in format version " + version
                        + ", was \"" + item + '"');
            }
            RateLimitAlgorithm algorithm = version == VERSION_1 ? RateLimitAlgorithm.SLIDING_WINDOW
                    : RateLimitAlgorithm.valueOf(p[4]);
            int cost = version == VERSION_1 ? 1 : Integer.parseInt(p[5]);
            limits.add(new IndexedLimit(new RateLimitPolicy(p[0], Integer.parseInt(p[1]), Integer.parseInt(p[2]),
                    algorithm), cost, RateLimitScope.valueOf(p[3])));
        }
        return limits;
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    static String unescape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\' || i + 1 == text.length()) {
                out.append(c);
                continue;
            }
            char next = text.charAt(++i);
            out.append(switch (next) {
                case 't' -> '\t';
                case 'n' -> '\n';
                case 'r' -> '\r';
                default -> next;
            });
        }
        return out.toString();
    }
}
