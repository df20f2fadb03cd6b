package dev.floodgate.tools;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in the test JVM with captured output. */
final class Cli
{
    /** One run's outcome. */
    record Result(int code, String out, String err)
    {
        @Override
        public String toString()
        {
            return "exit " + code + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    private Cli()
    {
    }

    static Result run(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = FloodgateCli.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(code, out.toString(), err.toString());
    }
}
