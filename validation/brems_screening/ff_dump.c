/* Dump xraylib's atomic form factor F(x, Z) (FF_Rayl, x = sin(theta/2)/lambda in 1/Angstrom)
 * on a log grid, for the partial-wave bremsstrahlung screening study (partial_wave.py). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <xraylib.h>

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        fprintf(stderr, "usage: ff_dump Z\n");
        return 2;
    }
    int const Z = atoi(argv[1]);
    for (int i = 0; i <= 4000; ++i)
    {
        double const x = pow(10.0, -4.0 + i * (6.0 / 4000));
        printf("%.10g %.10g\n", x, FF_Rayl(Z, x, NULL));
    }
    return 0;
}
