#include "../catch_main.h"

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
