/* tiny_exit.c -- the "tiny program" of process_creation: it exits at once
 * with status 0.  Not part of the library: benchlib compiles it on first
 * use with the system C compiler (see benchlib.measuring.benchmarks.tiny_program). */
int main(void)
{
    return 0;
}
