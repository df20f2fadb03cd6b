import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Build step (engine/pom.xml, process-classes): writes and compiles the implementation Chronicle Values would
 * otherwise generate and compile with javac inside the first {@code ChronicleMapBuilder.createPersistedTo} of every
 * JVM: about 1.4 s of a 2 s first open on this project's 2-core host (NOTES.md, "The first open"). Chronicle Values
 * loads a class of the generated name before it generates one ({@code ValueModel.createClass}), so shipping it in
 * the engine's classes skips the compile. The source comes from Chronicle Values' own generator, run here against
 * the same jars the engine runs with, so it is the class the JVM would have made.
 *
 * <p>Run as a single-file program: {@code java -cp <engine's class path> ValueClasses.java <sources> <classes>}.
 */
public final class ValueClasses
{
    /** The value interfaces Chronicle Map implements at run time when it maps a file (OpenWithoutCompilerTest). */
    private static final List<String> INTERFACES = List.of("net.openhft.chronicle.hash.VanillaGlobalMutableState");

    private ValueClasses()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length != 2)
        {
            throw new IllegalArgumentException("usage: ValueClasses <generated sources dir> <classes dir>");
        }
        final Path sources = Path.of(args[0]);
        final Path classes = Path.of(args[1]);
        final Class<?> modelType = Class.forName("net.openhft.chronicle.values.ValueModel");
        final Method acquire = modelType.getMethod("acquire", Class.class);
        final Method simpleName = accessible(modelType.getDeclaredMethod("simpleName"));
        final Method generate = accessible(Class.forName("net.openhft.chronicle.values.Generators")
            .getDeclaredMethod("generateNativeClass", modelType, String.class));
        final List<Path> written = new ArrayList<>();
        for (final String name : INTERFACES)
        {
            final Class<?> type = Class.forName(name);
            final Object model = acquire.invoke(null, type);
            final String className = simpleName.invoke(model) + "$$Native"; // as ValueModel.createNativeClass names it
            final String source = (String)generate.invoke(null, model, className);
            final Path file = sources.resolve(type.getPackageName().replace('.', '/')).resolve(className + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source, StandardCharsets.UTF_8);
            written.add(file);
        }
        compile(written, classes);
    }

    private static Method accessible(final Method method)
    {
        method.setAccessible(true);
        return method;
    }

    private static void compile(final List<Path> files, final Path classes) throws IOException
    {
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        try (StandardJavaFileManager manager = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8))
        {
            final Iterable<? extends JavaFileObject> units = manager.getJavaFileObjectsFromPaths(files);
            final List<String> options = List.of("-d", classes.toString(), "-classpath",
                System.getProperty("java.class.path"), "--release", "17", "-nowarn", "-proc:none");
            if (!javac.getTask(null, manager, null, options, null, units).call())
            {
                throw new IllegalStateException("javac failed on " + files);
            }
        }
    }
}
