// The control of valgrind.demo: a branch on an uninitialised heap value, which memcheck must
// report ("Conditional jump or move depends on uninitialised value").
#include <cstdio>
#include <cstdlib>

int main() {
    int* p = static_cast<int*>(std::malloc(sizeof(int)));
    if (p == nullptr) return 0;
    if (*p == 42) std::puts("42");
    std::free(p);
    return 0;
}
