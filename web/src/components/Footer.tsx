export default function Footer() {
  return (
    <footer className="footer">
      <p>Mango Bruise Tracker</p>
    </footer>
  );
}
