/* Linked with one layer whole and the layers beneath it: the build fails if that layer calls upward. */
int main(void)
{
	return 0;
}
