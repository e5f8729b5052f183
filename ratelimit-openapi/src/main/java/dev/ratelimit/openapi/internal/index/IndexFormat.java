package dev.ratelimit.openapi.internal.index;

import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The index resource, {@value #LOCATION}: UTF-8 text, one record a line, fields separated by tabs,
 * {@code #} comments. Written by the annotation processor, read by the OpenAPI filter and the
 * start-up check. Lines are sorted, so one source always gives the same bytes.
 *
 * <pre>
 * ratelimit-index	3
 * application	&lt;binary class name&gt;	&lt;application path&gt;	&lt;limits&gt;
 * method	&lt;root class&gt;	&lt;HTTP method&gt;	&lt;path below the application&gt;	&lt;java method&gt;	&lt;class limits&gt;	&lt;method limits&gt;	&lt;method as messages name it&gt;	&lt;keys&gt;
 * </pre>
 *
 * A java method is {@code <binary class name>#<name>(<parameter type>,...)}, parameter types erased,
 * in the form {@link Class#getTypeName()} gives ({@code java.lang.String[]}, {@code a.b.Outer$Inner}).
 * Limits are the declarations in declaration order, separated by commas; an empty field is no limit. A
 * declaration is a serialisation of {@link LimitDeclaration}: {@code <member>=<value>} items separated by
 * semicolons, one per member ({@link LimitDeclaration#members()}) and {@code place}, values escaped with
 * {@code %} and two hex digits for {@code %,;=}, tab and line breaks. Paths escape backslash, tab and line
 * breaks. Keys are the method's {@code @RateLimitKey} parameters, separated by commas, each
 * {@code <position>:<type>:<enum|other>:<exact|normalised>} (the type as {@link Class#getName()} writes it); the
 * field is left out when there is none. Readers skip record kinds they do not know, so later versions may add some.
 *
 * <p>Versions 1 and 2 wrote a limit as {@code <name>;<permitLimit>;<windowSeconds>;<scope>} and version 2
 * added {@code ;<algorithm>;<cost>}; they are still read, the members they did not write at their defaults,
 * the places named from the class and method names. A later version than {@value #VERSION} is refused with
 * a message saying so: its limits may mean something this reader does not know.
 */
public final class IndexFormat {

    /** Where each compilation's index is, in its class output (and so in its jar). */
    public static final String LOCATION = "META-INF/ratelimit/resource-methods.idx";

    static final String HEADER = "ratelimit-index";
    static final int VERSION = 3;
    /** The first version, still read: limits without algorithm and cost. */
    static final int VERSION_1 = 1;
    /** Still read: limits as positional fields, up to the cost. */
    static final int VERSION_2 = 2;
    static final String APPLICATION = "application";
    static final String METHOD = "method";
    /** The item of a declaration that holds its place (every other item is a member). */
    static final String PLACE = "place";

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
            String line = String.join("\t", METHOD, m.rootClass(), m.httpMethod(), escape(m.path()), m.javaMethod(),
                    limits(m.classLimits()), limits(m.methodLimits()), escape(m.where()));
            lines.add(m.keys().isEmpty() ? line : line + "\t" + keys(m.keys()));
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
                            parseLimits(f[3], version, DeclaredOn.MODULE, simpleName(f[1]))));
                } else if (METHOD.equals(f[0])) {
                    fields(f, version >= VERSION ? 8 : 7);
                    if (f[4].indexOf('#') < 1) {
                        throw new IllegalArgumentException("java method without a class: " + f[4]);
                    }
                    String resourceClass = f[4].substring(0, f[4].indexOf('#'));
                    String where = version >= VERSION ? unescape(f[7]) : describe(f[4]);
                    methods.add(new IndexedMethod(f[1], f[2], PathTemplates.normalize(unescape(f[3])), f[4], where,
                            parseLimits(f[5], version, DeclaredOn.CLASS, simpleName(resourceClass)),
                            parseLimits(f[6], version, DeclaredOn.METHOD, where),
                            f.length > 8 ? parseKeys(f[8]) : List.of()));
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

    static String keys(List<KeyParameter> keys) {
        StringJoiner items = new StringJoiner(",");
        for (KeyParameter key : keys) {
            items.add(key.position() + ":" + key.type() + ":" + (key.isEnum() ? "enum" : "other") + ":"
                    + (key.exact() ? "exact" : "normalised"));
        }
        return items.toString();
    }

    static List<KeyParameter> parseKeys(String field) {
        List<KeyParameter> keys = new ArrayList<>();
        if (field.isEmpty()) {
            return keys;
        }
        for (String item : field.split(",")) {
            String[] p = item.split(":", -1);
            if (p.length != 4) {
                throw new IllegalArgumentException("a key is <position>:<type>:<enum|other>:<exact|normalised>, was \""
                        + item + '"');
            }
            try {
                keys.add(new KeyParameter(Integer.parseInt(p[0]), p[1], p[2].equals("enum"), p[3].equals("exact")));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("a key's position is a number, was \"" + item + '"', e);
            }
        }
        return keys;
    }

    static String limits(List<LimitDeclaration> limits) {
        StringJoiner items = new StringJoiner(",");
        for (LimitDeclaration limit : limits) {
            StringJoiner members = new StringJoiner(";");
            limit.members().forEach((member, value) -> members.add(member + "=" + encode(
                    value instanceof Enum<?> e ? e.name() : String.valueOf(value))));
            members.add(PLACE + "=" + encode(limit.place()));
            items.add(members.toString());
        }
        return items.toString();
    }

    /**
     * The declarations of a field, found on {@code level}; {@code place} names them where the version wrote no place.
     * A value that is not one of its member's is kept in the declaration ({@link LimitDeclaration#unreadable}), for
     * the resolver to report.
     */
    static List<LimitDeclaration> parseLimits(String field, int version, DeclaredOn level, String place) {
        List<LimitDeclaration> limits = new ArrayList<>();
        if (field.isEmpty()) {
            return limits;
        }
        for (String item : field.split(",")) {
            Map<String, String> members = version >= VERSION ? members(item) : positional(item, version);
            LimitDeclaration.Builder declaration = LimitDeclaration.builder(level,
                    members.containsKey(PLACE) ? members.remove(PLACE) : place);
            members.forEach(declaration::member);
            limits.add(declaration.build());
        }
        return limits;
    }

    private static Map<String, String> members(String item) {
        Map<String, String> members = new LinkedHashMap<>();
        for (String pair : item.split(";")) {
            int equals = pair.indexOf('=');
            if (equals < 1) {
                throw new IllegalArgumentException("a limit's item is member=value, was \"" + pair + '"');
            }
            members.put(pair.substring(0, equals), decode(pair.substring(equals + 1)));
        }
        return members;
    }

    /** A limit of version 1 or 2: positional fields, each a member. */
    private static Map<String, String> positional(String item, int version) {
        List<String> names = version == VERSION_1
                ? List.of(LimitDeclaration.NAME, LimitDeclaration.PERMIT_LIMIT, LimitDeclaration.WINDOW_SECONDS,
                LimitDeclaration.SCOPE)
                : List.of(LimitDeclaration.NAME, LimitDeclaration.PERMIT_LIMIT, LimitDeclaration.WINDOW_SECONDS,
                LimitDeclaration.SCOPE, LimitDeclaration.ALGORITHM, LimitDeclaration.COST);
        String[] p = item.split(";", -1);
        if (p.length != names.size()) {
            throw new IllegalArgumentException("a limit is " + String.join(";", names) + " in format version " + version
                    + ", was \"" + item + '"');
        }
        Map<String, String> members = new LinkedHashMap<>();
        for (int i = 0; i < p.length; i++) {
            members.put(names.get(i), p[i]);
        }
        return members;
    }

    /** {@code TodoResource.create(NewTodo, int[])} from {@code a.TodoResource#create(a.NewTodo,int[])}. */
    static String describe(String javaMethod) {
        int hash = javaMethod.indexOf('#');
        int open = javaMethod.indexOf('(', hash);
        StringJoiner params = new StringJoiner(", ", "(", ")");
        String list = javaMethod.substring(open + 1, javaMethod.length() - 1);
        if (!list.isEmpty()) {
            for (String type : list.split(",")) {
                params.add(simpleName(type));
            }
        }
        return simpleName(javaMethod.substring(0, hash)) + "." + javaMethod.substring(hash + 1, open) + params;
    }

    private static String simpleName(String binaryName) {
        return binaryName.substring(Math.max(binaryName.lastIndexOf('.'), binaryName.lastIndexOf('$')) + 1);
    }

    private static String encode(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '%' || c == ',' || c == ';' || c == '=' || c == '\t' || c == '\n' || c == '\r') {
                out.append('%').append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String decode(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '%' && i + 2 < value.length()) {
                out.append((char) Integer.parseInt(value.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
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
