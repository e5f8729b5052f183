package dev.ratelimit.cdi;

/** Whether an optional class is on the library's class path: the integrations it uses only when present. */
public final class OptionalClasses {

    private OptionalClasses() {
    }

    /** True when {@code className} can be loaded by the library's class loader (it is not initialized). */
    public static boolean present(String className) {
        try {
            Class.forName(className, false, OptionalClasses.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
